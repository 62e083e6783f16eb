#include <kcoro/core/json_patch.hpp>

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <charconv>
#include <limits>

namespace kcoro {
namespace json = boost::json;

namespace {

// A failure while applying: the real server's generic 422, our details in
// the message.
error apply_error(std::size_t index, std::string_view op, std::string_view path, std::string_view why) {
    status s;
    s.outcome = "Failure";
    s.message = std::string(json_patch_rejected_message);
    s.reason = "Invalid";
    s.code = 422;
    s.details = status_details{};
    std::string what = "json patch operation " + std::to_string(index);
    if (!op.empty()) {
        what += " (" + std::string(op) + " " + std::string(path) + ")";
    }
    what += ": " + std::string(why);
    return error::from_status(std::move(s)).with_context(what);
}

error bad_request(std::string message) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(message);
    s.reason = "BadRequest";
    s.code = 400;
    return error::from_status(std::move(s));
}

// Array index per RFC 6901 (no leading zeros, no sign), plus evanphx v4's
// negative indices. `allow_end` accepts index == size (add).
std::optional<std::size_t> array_index(std::string_view tok, std::size_t size, bool allow_end) {
    if (tok == "-") {
        return allow_end ? std::optional<std::size_t>(size) : std::nullopt;
    }
    bool negative = !tok.empty() && tok[0] == '-';
    std::string_view digits = negative ? tok.substr(1) : tok;
    if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) {
        return std::nullopt;
    }
    std::size_t n = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc{} || p != digits.data() + digits.size()) {
        return std::nullopt;
    }
    if (negative) {
        if (n == 0 || n > size) return std::nullopt;
        return size - n;
    }
    if (n > size || (n == size && !allow_end)) {
        return std::nullopt;
    }
    return n;
}

json::value* resolve(json::value& doc, const std::vector<std::string>& toks, std::size_t count) {
    json::value* cur = &doc;
    for (std::size_t i = 0; i < count; ++i) {
        if (auto* o = cur->if_object()) {
            cur = o->if_contains(toks[i]);
        } else if (auto* a = cur->if_array()) {
            auto idx = array_index(toks[i], a->size(), false);
            cur = idx ? &(*a)[*idx] : nullptr;
        } else {
            cur = nullptr;
        }
        if (!cur) return nullptr;
    }
    return cur;
}

// The outcome of one primitive step; an empty string is success.
using step_error = std::string;

step_error do_add(json::value& doc, const std::vector<std::string>& toks, json::value v) {
    if (toks.empty()) {
        doc = std::move(v);
        return {};
    }
    json::value* parent = resolve(doc, toks, toks.size() - 1);
    if (!parent) return "parent of the path does not exist";
    const std::string& last = toks.back();
    if (auto* o = parent->if_object()) {
        (*o)[last] = std::move(v);
        return {};
    }
    if (auto* a = parent->if_array()) {
        auto idx = array_index(last, a->size(), true);
        if (!idx) return "array index " + last + " out of range";
        a->insert(a->begin() + static_cast<std::ptrdiff_t>(*idx), std::move(v));
        return {};
    }
    return "parent of the path is not an object or array";
}

step_error do_remove(json::value& doc, const std::vector<std::string>& toks, json::value* removed) {
    if (toks.empty()) return "cannot remove the whole document";
    json::value* parent = resolve(doc, toks, toks.size() - 1);
    if (!parent) return "path does not exist";
    const std::string& last = toks.back();
    if (auto* o = parent->if_object()) {
        auto it = o->find(last);
        if (it == o->end()) return "path does not exist";
        if (removed) *removed = std::move(it->value());
        o->erase(it);
        return {};
    }
    if (auto* a = parent->if_array()) {
        auto idx = array_index(last, a->size(), false);
        if (!idx) return "array index " + last + " out of range";
        if (removed) *removed = std::move((*a)[*idx]);
        a->erase(a->begin() + static_cast<std::ptrdiff_t>(*idx));
        return {};
    }
    return "path does not exist";
}

const json::string* str_member(const json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v ? v->if_string() : nullptr;
}

bool is_prefix_pointer(const std::vector<std::string>& prefix, const std::vector<std::string>& toks) {
    if (prefix.size() >= toks.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (prefix[i] != toks[i]) return false;
    }
    return true;
}

// Apply one operation to `doc` (which is a scratch copy).
std::optional<error> apply_op(json::value& doc, const json::value& opv, std::size_t index) {
    const auto* opo = opv.if_object();
    if (!opo) return apply_error(index, "", "", "operation is not an object");
    const auto* op = str_member(*opo, "op");
    if (!op) return apply_error(index, "", "", "missing \"op\"");
    const auto* path_s = str_member(*opo, "path");
    if (!path_s) return apply_error(index, *op, "", "missing \"path\"");
    std::string_view path = *path_s;
    auto toks = parse_json_pointer(path);
    if (!toks) return apply_error(index, *op, path, "malformed path");
    const json::value* value = opo->if_contains("value");

    auto fail = [&](std::string_view why) { return apply_error(index, *op, path, why); };
    auto from_tokens = [&]() -> std::optional<std::vector<std::string>> {
        const auto* from = str_member(*opo, "from");
        if (!from) return std::nullopt;
        auto t = parse_json_pointer(*from);
        if (!t) return std::nullopt;
        return std::move(*t);
    };

    if (*op == "add") {
        if (!value) return fail("missing \"value\"");
        if (auto e = do_add(doc, *toks, *value); !e.empty()) return fail(e);
    } else if (*op == "remove") {
        if (auto e = do_remove(doc, *toks, nullptr); !e.empty()) return fail(e);
    } else if (*op == "replace") {
        if (!value) return fail("missing \"value\"");
        json::value* target = resolve(doc, *toks, toks->size());
        if (!target) return fail("path does not exist");
        *target = *value;
    } else if (*op == "move") {
        auto from = from_tokens();
        if (!from) return fail("missing or malformed \"from\"");
        if (*from == *toks) return std::nullopt;
        if (is_prefix_pointer(*from, *toks)) return fail("cannot move a value into one of its own children");
        json::value moved;
        if (auto e = do_remove(doc, *from, &moved); !e.empty()) return fail("from: " + e);
        if (auto e = do_add(doc, *toks, std::move(moved)); !e.empty()) return fail(e);
    } else if (*op == "copy") {
        auto from = from_tokens();
        if (!from) return fail("missing or malformed \"from\"");
        const json::value* src = resolve(doc, *from, from->size());
        if (!src) return fail("from: path does not exist");
        json::value copy = *src;
        if (auto e = do_add(doc, *toks, std::move(copy)); !e.empty()) return fail(e);
    } else if (*op == "test") {
        if (!value) return fail("missing \"value\"");
        const json::value* target = resolve(doc, *toks, toks->size());
        if (!target) {
            // evanphx v4: a missing member of an existing object tests equal to null.
            const json::value* parent = toks->empty() ? nullptr : resolve(doc, *toks, toks->size() - 1);
            if (value->is_null() && parent && parent->is_object()) return std::nullopt;
            return fail("test failed: path does not exist");
        }
        if (!json_equal(*target, *value)) {
            return fail("test failed: value is " + json::serialize(*target) + ", expected " + json::serialize(*value));
        }
    } else {
        return fail("unknown op");
    }
    return std::nullopt;
}

// encoding/json's name for a JSON kind, as in its unmarshal errors.
std::string go_kind(const json::value& v) {
    switch (v.kind()) {
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::string: return "string";
    case json::kind::bool_: return "bool";
    case json::kind::null: return "null";
    default: return "number";
    }
}

json::object make_op(std::string_view op, std::string_view path) {
    json::object o;
    o["op"] = op;
    o["path"] = path;
    return o;
}

json::array finalizers_array(const json::object& obj) {
    json::array out;
    for (const auto& f : finalizers_of(obj)) out.emplace_back(f);
    return out;
}

} // namespace

result<std::vector<std::string>> parse_json_pointer(std::string_view pointer) {
    std::vector<std::string> toks;
    if (pointer.empty()) return toks;
    if (pointer[0] != '/') return error(kcoro_errc::decode_error, "JSON pointer must start with '/'");
    std::string cur;
    for (std::size_t i = 1; i <= pointer.size(); ++i) {
        if (i == pointer.size() || pointer[i] == '/') {
            toks.push_back(std::move(cur));
            cur.clear();
            continue;
        }
        char c = pointer[i];
        if (c == '~') {
            if (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
                return error(kcoro_errc::decode_error, "JSON pointer has a bad '~' escape");
            }
            cur += pointer[i + 1] == '0' ? '~' : '/';
            ++i;
        } else {
            cur += c;
        }
    }
    return toks;
}

std::string escape_json_pointer_token(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string make_json_pointer(std::initializer_list<std::string_view> tokens) {
    std::string out;
    for (auto t : tokens) {
        out += '/';
        out += escape_json_pointer_token(t);
    }
    return out;
}

const json::value* find_json_pointer(const json::value& doc, std::string_view pointer) {
    // RFC 6901 as Boost.JSON implements it. The patch operations keep their
    // own walk (resolve): evanphx/json-patch v4 also takes negative indices.
    boost::system::error_code ec;
    return doc.find_pointer(pointer, ec);
}

result<json::value> apply_json_patch(const json::value& doc, const json::value& patch) {
    if (patch.is_null()) return doc;  // Go decodes null into an empty patch
    const auto* ops = patch.if_array();
    if (!ops) return bad_request("json: cannot unmarshal " + go_kind(patch) + " into Go value of type jsonpatch.Patch");
    for (const auto& op : *ops) {
        if (!op.is_object() && !op.is_null()) {
            return bad_request("json: cannot unmarshal " + go_kind(op) + " into Go value of type jsonpatch.Operation");
        }
    }
    if (ops->size() > max_json_patch_operations) {
        status s;
        s.outcome = "Failure";
        s.message = "The allowed maximum operations in a JSON patch is " + std::to_string(max_json_patch_operations) +
                    ", got " + std::to_string(ops->size());
        s.reason = "RequestEntityTooLarge";
        s.code = 413;
        return error::from_status(std::move(s));
    }
    // Work on a copy so a failure at operation n leaves the caller's value as it was.
    json::value out = doc;
    for (std::size_t i = 0; i < ops->size(); ++i) {
        if (auto e = apply_op(out, (*ops)[i], i)) return *e;
    }
    return out;
}

result<json::value> apply_json_patch(const json::value& doc, std::string_view patch_text) {
    boost::system::error_code ec;
    json::value patch = json::parse(patch_text, ec);
    if (ec) return bad_request(ec.message());
    return apply_json_patch(doc, patch);
}

json::object json_patch_test(std::string_view path, json::value value) {
    auto o = make_op("test", path);
    o["value"] = std::move(value);
    return o;
}
json::object json_patch_add(std::string_view path, json::value value) {
    auto o = make_op("add", path);
    o["value"] = std::move(value);
    return o;
}
json::object json_patch_replace(std::string_view path, json::value value) {
    auto o = make_op("replace", path);
    o["value"] = std::move(value);
    return o;
}
json::object json_patch_remove(std::string_view path) { return make_op("remove", path); }

std::optional<json::array> make_add_finalizer_patch(const json::object& obj, std::string_view finalizer,
                                                    finalizer_guard guard) {
    if (has_finalizer(obj, finalizer)) return std::nullopt;
    json::array current = finalizers_array(obj);
    const json::value* present = find_path(obj, {"metadata", "finalizers"});
    json::array patch;
    if (guard == finalizer_guard::resource_version) {
        patch.push_back(json_patch_test("/metadata/resourceVersion", json::string(resource_version_of(obj))));
    } else {
        // Absent reads as null: the test asserts nobody added a list meanwhile.
        patch.push_back(json_patch_test("/metadata/finalizers", present ? json::value(current) : json::value(nullptr)));
    }
    if (present && present->is_array()) {
        patch.push_back(json_patch_add("/metadata/finalizers/-", json::string(finalizer)));
    } else {
        current.emplace_back(finalizer);
        patch.push_back(json_patch_add("/metadata/finalizers", std::move(current)));
    }
    return patch;
}

std::optional<json::array> make_remove_finalizer_patch(const json::object& obj, std::string_view finalizer,
                                                       finalizer_guard guard) {
    json::array current = finalizers_array(obj);
    std::size_t index = current.size();
    for (std::size_t i = 0; i < current.size(); ++i) {
        if (current[i].get_string() == finalizer) {
            index = i;
            break;
        }
    }
    if (index == current.size()) return std::nullopt;
    json::array patch;
    if (guard == finalizer_guard::resource_version) {
        patch.push_back(json_patch_test("/metadata/resourceVersion", json::string(resource_version_of(obj))));
    } else {
        patch.push_back(json_patch_test("/metadata/finalizers", std::move(current)));
    }
    patch.push_back(json_patch_remove("/metadata/finalizers/" + std::to_string(index)));
    return patch;
}

} // namespace kcoro
