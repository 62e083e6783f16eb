// The YAML reader: libyaml's event parser (pure: it reads from our string)
// drives a Boost.JSON builder with an explicit stack, so hostile nesting can
// never exhaust the C++ stack. Scalar meaning is in yaml_scalar.cpp.
#include <kcoro/core/yaml.hpp>

#include "yaml_scalar.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <yaml.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace kcoro {
namespace json = boost::json;
namespace {

using detail::yaml::key_text;
using detail::yaml::resolve_plain;
using detail::yaml::resolve_tagged;

struct position {
    std::size_t line = 0;  // 0-based, as libyaml's marks
    std::size_t column = 0;
};

// Errors inside the builder carry their position; they become the
// "yaml: line L, column C: what" decode_error at the entry point.
struct failure {
    position at;
    std::string what;
};

position at(const yaml_mark_t& m) { return {m.line, m.column}; }

std::string_view text_of(const yaml_char_t* p, std::size_t n) {
    return p ? std::string_view(reinterpret_cast<const char*>(p), n) : std::string_view();
}
std::string_view text_of(const yaml_char_t* p) {
    return p ? std::string_view(reinterpret_cast<const char*>(p)) : std::string_view();
}

// goyaml.v2 decode.go's bound on alias expansion (billion laughs): small
// documents may take 99% of their nodes from aliases, very large ones 10%.
double allowed_alias_ratio(std::size_t decoded) {
    constexpr double low = 400000, high = 4000000;
    auto d = static_cast<double>(decoded);
    if (d <= low) return 0.99;
    if (d >= high) return 0.10;
    return 0.99 - 0.89 * ((d - low) / (high - low));
}

class builder {
public:
    explicit builder(const yaml_options& o) : options_(o) {}

    // Feeds one event; returns a document's root when it ends.
    std::optional<json::value> feed(const yaml_event_t& e) {
        switch (e.type) {
        case YAML_DOCUMENT_START_EVENT:
            anchors_.clear();
            decoded_ = aliased_ = 0;
            root_.reset();
            return std::nullopt;
        case YAML_DOCUMENT_END_EVENT: {
            auto r = std::move(root_);
            root_.reset();
            return r ? std::move(r) : json::value(nullptr);
        }
        case YAML_SCALAR_EVENT: scalar(e); return std::nullopt;
        case YAML_ALIAS_EVENT: alias(e); return std::nullopt;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: start(e); return std::nullopt;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: end(); return std::nullopt;
        default: return std::nullopt;
        }
    }

private:
    struct node {
        json::value v;
        std::size_t nodes = 1;  // decoded nodes, alias expansions included
        std::size_t depth = 0;  // nesting levels below this value
    };
    struct frame {
        bool is_map = false;
        json::value v;
        std::string anchor;
        std::size_t nodes_at_start = 0;
        std::size_t depth = 0;               // deepest child + 1
        std::optional<std::string> key;      // a mapping's key waiting for its value
        bool key_is_merge = false;
        position key_at;
        std::vector<json::object> merges;    // `<<` values, earlier ones win
    };

    [[noreturn]] static void fail(position p, std::string what) { throw failure{p, std::move(what)}; }

    bool expecting_key() const { return !stack_.empty() && stack_.back().is_map && !stack_.back().key; }

    void check_depth(position p, std::size_t below) const {
        if (stack_.size() + below > yaml_max_depth) {
            fail(p, "nesting deeper than " + std::to_string(yaml_max_depth) + " levels");
        }
    }

    json::value scalar_value(const yaml_event_t& e) const {
        const auto& s = e.data.scalar;
        std::string_view text = text_of(s.value, s.length);
        std::string_view tag = text_of(s.tag);
        if (!tag.empty() && tag != "!") {
            if (options_.plain_scalars_as_strings) return json::string(text);
            std::string why;
            auto v = resolve_tagged(tag, text, why);
            if (!v) fail(at(e.start_mark), why);
            return std::move(*v);
        }
        if (!s.plain_implicit || tag == "!") return json::string(text);  // quoted, block or `!`: a string
        if (options_.plain_scalars_as_strings) {
            json::value v = resolve_plain(text);
            return v.is_null() ? v : json::value(json::string(text));
        }
        return resolve_plain(text);
    }

    void set_key(const json::value& k, position p, bool is_merge) {
        auto text = key_text(k);
        if (!text) fail(p, "a null mapping key (JSON member names are strings)");
        auto& f = stack_.back();
        f.key = std::move(*text);
        f.key_is_merge = is_merge;
        f.key_at = p;
    }

    void scalar(const yaml_event_t& e) {
        position p = at(e.start_mark);
        if (expecting_key()) {
            const auto& s = e.data.scalar;
            std::string_view tag = text_of(s.tag);
            bool merge = text_of(s.value, s.length) == "<<" &&
                         ((tag.empty() && s.plain_implicit) || tag == "tag:yaml.org,2002:merge");
            json::value k = options_.plain_scalars_as_strings ? json::value(json::string(text_of(s.value, s.length)))
                                                              : scalar_value(e);
            ++decoded_;
            if (s.anchor) anchors_[std::string(text_of(s.anchor))] = node{k, 1, 0};
            set_key(k, p, merge);
            return;
        }
        node n{scalar_value(e), 1, 0};
        ++decoded_;
        if (e.data.scalar.anchor) anchors_[std::string(text_of(e.data.scalar.anchor))] = n;
        put(std::move(n));
    }

    void alias(const yaml_event_t& e) {
        position p = at(e.start_mark);
        std::string name(text_of(e.data.alias.anchor));
        auto it = anchors_.find(name);
        if (it == anchors_.end()) fail(p, "unknown anchor '" + name + "' referenced");
        const node& a = it->second;
        std::size_t decoded = decoded_ + a.nodes, aliased = aliased_ + a.nodes;
        if (aliased > 100 && decoded > 1000 &&
            static_cast<double>(aliased) / static_cast<double>(decoded) > allowed_alias_ratio(decoded)) {
            fail(p, "document contains excessive aliasing");
        }
        decoded_ = decoded;
        aliased_ = aliased;
        if (expecting_key()) {
            if (!a.v.is_primitive() && !a.v.is_string()) fail(p, "a mapping key must be a scalar");
            set_key(a.v, p, false);
            return;
        }
        check_depth(p, a.depth);
        put(node{a.v, a.nodes, a.depth});
    }

    void start(const yaml_event_t& e) {
        position p = at(e.start_mark);
        if (expecting_key()) fail(p, "a mapping key must be a scalar (JSON member names are strings)");
        check_depth(p, 1);
        frame f;
        f.is_map = e.type == YAML_MAPPING_START_EVENT;
        f.v = f.is_map ? json::value(json::object()) : json::value(json::array());
        const yaml_char_t* anchor = f.is_map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor;
        if (anchor) f.anchor = std::string(text_of(anchor));
        f.nodes_at_start = decoded_;
        ++decoded_;
        stack_.push_back(std::move(f));
    }

    void end() {
        frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.is_map) {
            // Merge keys: a key of the mapping itself wins over merged ones,
            // an earlier merged mapping over a later one (the YAML merge spec).
            auto& o = f.v.get_object();
            for (auto& m : f.merges) {
                for (auto& kv : m) {
                    if (!o.contains(kv.key())) o.emplace(kv.key(), std::move(kv.value()));
                }
            }
        }
        node n{std::move(f.v), decoded_ - f.nodes_at_start, f.depth};
        if (!f.anchor.empty()) anchors_[f.anchor] = n;
        put(std::move(n));
    }

    void put(node n) {
        if (stack_.empty()) {
            root_ = std::move(n.v);
            return;
        }
        auto& f = stack_.back();
        f.depth = std::max(f.depth, n.depth + 1);
        if (!f.is_map) {
            f.v.get_array().push_back(std::move(n.v));
            return;
        }
        std::string key = std::move(*f.key);
        f.key.reset();
        if (f.key_is_merge) {
            if (auto* o = n.v.if_object()) {
                f.merges.push_back(std::move(*o));
            } else if (auto* a = n.v.if_array(); a && std::all_of(a->begin(), a->end(), [](const json::value& x) {
                                                       return x.is_object();
                                                   })) {
                for (auto& x : *a) f.merges.push_back(std::move(x.get_object()));
            } else {
                fail(f.key_at, "map merge requires map or sequence of maps as the value");
            }
            return;
        }
        auto& o = f.v.get_object();
        if (o.contains(key)) fail(f.key_at, "duplicate mapping key \"" + key + "\"");
        o.emplace(key, std::move(n.v));
    }

    yaml_options options_;
    std::vector<frame> stack_;
    std::optional<json::value> root_;
    std::unordered_map<std::string, node> anchors_;
    std::size_t decoded_ = 0;
    std::size_t aliased_ = 0;
};

// Line and column of a byte offset (reader errors carry only the offset).
position position_of(std::string_view text, std::size_t offset) {
    position p;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 0;
        } else {
            ++p.column;
        }
    }
    return p;
}

std::string where(position p) {
    return "line " + std::to_string(p.line + 1) + ", column " + std::to_string(p.column + 1);
}

// libyaml's problem, its position and (for scanner and parser errors) what
// it was reading and where that started.
error parser_error(const yaml_parser_t& p, std::string_view text) {
    std::string problem = p.problem ? p.problem : "unknown problem parsing YAML content";
    position pos = p.error == YAML_READER_ERROR ? position_of(text, p.problem_offset) : at(p.problem_mark);
    std::string msg = "yaml: " + where(pos) + ": " + problem;
    if (p.context && p.error != YAML_READER_ERROR) {
        msg += std::string(" ") + p.context;
        position c = at(p.context_mark);
        if (c.line != pos.line || c.column != pos.column) msg += " at " + where(c);
    }
    return error(kcoro_errc::decode_error, std::move(msg));
}

struct parser_guard {
    yaml_parser_t p;
    parser_guard() { yaml_parser_initialize(&p); }
    ~parser_guard() { yaml_parser_delete(&p); }
    parser_guard(const parser_guard&) = delete;
    parser_guard& operator=(const parser_guard&) = delete;
};

struct event_guard {
    yaml_event_t e{};
    ~event_guard() { yaml_event_delete(&e); }
};

} // namespace

result<std::vector<boost::json::value>> parse_yaml_documents(std::string_view text, const yaml_options& options) {
    parser_guard g;
    yaml_parser_set_input_string(&g.p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    builder b(options);
    std::vector<json::value> docs;
    try {
        for (;;) {
            event_guard ev;
            if (!yaml_parser_parse(&g.p, &ev.e)) return parser_error(g.p, text);
            if (ev.e.type == YAML_STREAM_END_EVENT) break;
            if (auto doc = b.feed(ev.e)) docs.push_back(std::move(*doc));
        }
    } catch (const failure& f) {
        return error(kcoro_errc::decode_error, "yaml: " + where(f.at) + ": " + f.what);
    } catch (const std::exception& e) {  // allocation failures and the like
        return error(kcoro_errc::decode_error, std::string("yaml: ") + e.what());
    }
    return docs;
}

result<boost::json::value> parse_yaml(std::string_view text, const yaml_options& options) {
    auto docs = parse_yaml_documents(text, options);
    if (!docs) return docs.error();
    if (docs->empty()) return json::value(nullptr);
    if (docs->size() > 1) {
        return error(kcoro_errc::decode_error,
                     "yaml: expected a single document, found " + std::to_string(docs->size()));
    }
    return std::move(docs->front());
}

} // namespace kcoro
