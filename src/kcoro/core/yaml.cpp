#include <kcoro/core/yaml.hpp>

#include "yaml_parser.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <exception>
#include <string>
#include <utility>

namespace kcoro::detail::yaml {

std::pair<std::size_t, std::size_t> parser::line_col(std::size_t pos) const {
    std::size_t line = 1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < pos && i < s_.size(); ++i) {
        if (s_[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    return {line, pos - start + 1};
}

// Consumes the rest of the line (whitespace and a comment only) and its break.
void parser::finish_line() {
    skip_inline_ws();
    if (cur() == '#') {
        while (!eof() && cur() != '\n') {
            ++p_;
        }
    }
    if (eof()) {
        return;
    }
    if (cur() != '\n') {
        fail("unexpected content after the value");
    }
    advance();
}

// From a line start: skips empty and comment-only lines, stops at the first
// content character (or the end). Tabs may not indent content.
void parser::skip_blank_lines() {
    while (!eof()) {
        std::size_t i = p_;
        while (i < s_.size() && s_[i] == ' ') {
            ++i;
        }
        std::size_t content = i;
        while (content < s_.size() && is_ws(s_[content])) {
            ++content;
        }
        if (content >= s_.size() || s_[content] == '\n' || s_[content] == '#') {
            // blank or comment line
            while (content < s_.size() && s_[content] != '\n') {
                ++content;
            }
            p_ = content;
            if (eof()) {
                return;
            }
            advance();
            continue;
        }
        if (content != i) {
            fail_at(i, "tab character used for indentation");
        }
        p_ = i;
        return;
    }
}

// Skips a quoted scalar starting at i on one line; returns the index after
// the closing quote or npos.
std::size_t parser::scan_quoted_end(std::size_t i) const {
    char q = s_[i];
    ++i;
    while (i < s_.size() && s_[i] != '\n') {
        if (q == '"' && s_[i] == '\\') {
            i += 2;
            continue;
        }
        if (s_[i] == q) {
            if (q == '\'' && at(i + 1) == '\'') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        ++i;
    }
    return std::string::npos;
}

// Whether the line at p_ is `key: ...` (an implicit block mapping key).
bool parser::line_has_mapping_key() const {
    std::size_t i = p_;
    char c = at(i);
    if (c == '"' || c == '\'') {
        i = scan_quoted_end(i);
        if (i == std::string::npos) {
            return false;
        }
        while (i < s_.size() && is_ws(s_[i])) {
            ++i;
        }
        return at(i) == ':' && ws_or_end(i + 1);
    }
    if (c == '[' || c == '{' || c == '|' || c == '>' || c == '#' || c == '%' || c == '@' || c == '`') {
        return false;
    }
    for (; i < s_.size() && s_[i] != '\n'; ++i) {
        if (s_[i] == '#' && i > p_ && is_ws(s_[i - 1])) {
            return false;
        }
        if (s_[i] == ':' && ws_or_end(i + 1)) {
            return true;
        }
    }
    return false;
}

std::vector<json::value> parser::documents() {
    std::vector<json::value> docs;
    for (;;) {
        skip_blank_lines();
        while (!eof() && col() == 0 && cur() == '%') { // directives (%YAML, %TAG)
            while (!eof() && cur() != '\n') {
                ++p_;
            }
            skip_blank_lines();
        }
        if (eof()) {
            break;
        }
        bool explicit_start = false;
        json::value doc;
        if (at_doc_marker() && s_[p_] == '-') {
            explicit_start = true;
            p_ += 3;
            skip_inline_ws();
            if (at_line_end()) {
                next_content_line();
            } else {
                doc = parse_inline_value(-1);
            }
        } else if (at_doc_marker()) { // "..." with no document before it
            p_ += 3;
            finish_line();
            continue;
        }
        if (doc.is_null() && cur_indent() >= 0) {
            doc = parse_block_node(-1);
        }
        if (cur_indent() >= 0) {
            fail("unexpected content after the document's root node");
        }
        if (explicit_start || !doc.is_null()) {
            docs.push_back(std::move(doc));
        }
        if (at_doc_marker() && s_[p_] == '.') {
            p_ += 3;
            finish_line();
        }
    }
    return docs;
}

// A node whose first content is at p_ (column > parent_indent).
json::value parser::parse_block_node(int parent_indent) {
    depth_guard g(*this);
    int c = col();
    if (cur() == '-' && ws_or_end(p_ + 1)) {
        return parse_block_sequence(c);
    }
    if (cur() == '?' && ws_or_end(p_ + 1)) {
        fail("complex mapping keys (?) are not supported");
    }
    if (line_has_mapping_key()) {
        return parse_block_mapping(c);
    }
    return parse_inline_value(parent_indent);
}

// The value of `key:` or `-` whose line ended: a node on the following lines
// indented deeper, or (for a mapping value) a sequence at the same indent.
json::value parser::parse_value_below(int indent) {
    int c = cur_indent();
    if (c > indent) {
        return parse_block_node(indent);
    }
    return nullptr;
}

json::value parser::parse_block_sequence(int indent) {
    depth_guard g(*this);
    json::array arr;
    for (;;) {
        ++p_; // '-'
        skip_inline_ws();
        if (at_line_end()) {
            next_content_line();
            arr.push_back(parse_value_below(indent));
        } else if (cur() == '-' && ws_or_end(p_ + 1)) {
            arr.push_back(parse_block_sequence(col())); // "- - x"
        } else if (line_has_mapping_key()) {
            arr.push_back(parse_block_mapping(col())); // "- key: v"
        } else {
            arr.push_back(parse_inline_value(indent));
        }
        int c = cur_indent();
        if (c == indent && cur() == '-' && ws_or_end(p_ + 1)) {
            continue;
        }
        if (c > indent) {
            fail("bad indentation of a sequence entry");
        }
        return arr;
    }
}

json::value parser::parse_block_mapping(int indent) {
    depth_guard g(*this);
    json::object obj;
    for (;;) {
        std::size_t key_pos = p_;
        std::string key = parse_key();
        skip_inline_ws();
        json::value v;
        if (at_line_end()) {
            next_content_line();
            int c = cur_indent();
            if (c == indent && cur() == '-' && ws_or_end(p_ + 1)) {
                v = parse_block_sequence(indent); // sequence at the parent key's level
            } else {
                v = parse_value_below(indent);
            }
        } else {
            v = parse_inline_value(indent);
        }
        if (obj.contains(key)) {
            fail_at(key_pos, "duplicate mapping key \"" + key + "\"");
        }
        obj.emplace(key, std::move(v));
        int c = cur_indent();
        if (c < indent) {
            return obj;
        }
        if (c > indent) {
            fail("bad indentation of a mapping entry");
        }
        if (!line_has_mapping_key()) {
            fail(cur() == '-' ? "a sequence entry where a mapping key was expected"
                              : "could not find expected ':'");
        }
    }
}

std::string parser::parse_key() {
    reject_anchor_alias();
    if (cur() == '!') {
        skip_tag();
    }
    std::string key;
    if (cur() == '"') {
        key = parse_double_quoted();
    } else if (cur() == '\'') {
        key = parse_single_quoted();
    } else if (cur() == '[' || cur() == '{') {
        fail("flow collections as mapping keys are not supported");
    } else {
        std::size_t start = p_;
        while (!eof() && !(cur() == ':' && ws_or_end(p_ + 1))) {
            ++p_;
        }
        std::size_t end = p_;
        while (end > start && is_ws(s_[end - 1])) {
            --end;
        }
        key.assign(s_, start, end - start);
    }
    skip_inline_ws();
    if (cur() != ':') {
        fail("could not find expected ':'");
    }
    ++p_;
    return key;
}

// Skips a tag token (`!!str`, `!foo`); returns whether it asks for a string.
bool parser::skip_tag() {
    std::size_t start = p_;
    while (!eof() && !ws_or_end(p_) && !is_flow_indicator(cur())) {
        ++p_;
    }
    std::string_view tag(s_.data() + start, p_ - start);
    skip_inline_ws();
    return tag == "!!str" || tag == "!str" || tag == "tag:yaml.org,2002:str";
}

// A node that starts after `key: ` or `- ` on the same line (or a document
// marker): a block scalar, a flow collection, a quoted or plain scalar.
json::value parser::parse_inline_value(int parent_indent) {
    reject_anchor_alias();
    bool as_string = false;
    if (cur() == '!') {
        as_string = skip_tag();
        reject_anchor_alias();
        if (at_line_end()) {
            next_content_line();
            json::value v = parse_value_below(parent_indent);
            if (as_string && v.is_null()) {
                return json::string();
            }
            return v;
        }
    }
    json::value v;
    char c = cur();
    if (c == '|' || c == '>') {
        return json::string(parse_block_scalar(parent_indent));
    }
    if (c == '[' || c == '{') {
        v = parse_flow_node();
    } else if (c == '"') {
        v = json::string(parse_double_quoted());
    } else if (c == '\'') {
        v = json::string(parse_single_quoted());
    } else {
        std::string text = parse_plain(parent_indent, false);
        v = as_string ? json::value(json::string(text)) : resolve(text);
    }
    skip_inline_ws();
    if (cur() == ':' && ws_or_end(p_ + 1)) {
        fail("mapping values are not allowed here");
    }
    next_content_line();
    return v;
}

// One line's worth of a plain scalar, trailing blanks trimmed.
std::string parser::read_plain_run(bool flow) {
    std::size_t start = p_;
    while (!eof() && cur() != '\n') {
        char c = cur();
        if (c == ':' && (ws_or_end(p_ + 1) || (flow && is_flow_indicator(at(p_ + 1))))) {
            break;
        }
        if (c == '#' && p_ > start && is_ws(s_[p_ - 1])) {
            break;
        }
        if (flow && is_flow_indicator(c)) {
            break;
        }
        ++p_;
    }
    std::size_t end = p_;
    while (end > start && is_ws(s_[end - 1])) {
        --end;
    }
    return s_.substr(start, end - start);
}

// A plain scalar, possibly continued on following lines indented deeper than
// parent_indent (block) or on any line (flow); line breaks fold to spaces,
// empty lines to newlines.
std::string parser::parse_plain(int parent_indent, bool flow) {
    std::string out = read_plain_run(flow);
    for (;;) {
        skip_inline_ws();
        if (cur() != '\n') {
            return out; // a comment, an indicator or the end
        }
        std::size_t save_p = p_, save_ls = ls_;
        advance();
        std::size_t breaks = 0;
        for (;;) { // count empty lines
            while (!eof() && is_ws(cur())) {
                ++p_;
            }
            if (cur() == '\n') {
                ++breaks;
                advance();
                continue;
            }
            break;
        }
        bool more = !eof() && cur() != '#' && !at_doc_marker() &&
                    (flow ? !is_flow_indicator(cur()) && cur() != ':' : col() > parent_indent);
        if (!flow && more && (cur() == '-' || cur() == '?' || cur() == ':') && ws_or_end(p_ + 1)) {
            more = col() > parent_indent; // still text in YAML when deeper
        }
        if (!more) {
            p_ = save_p;
            ls_ = save_ls;
            return out;
        }
        if (breaks == 0) {
            out.push_back(' ');
        } else {
            out.append(breaks, '\n');
        }
        out += read_plain_run(flow);
    }
}

} // namespace kcoro::detail::yaml

namespace kcoro {

result<std::vector<boost::json::value>> parse_yaml_documents(std::string_view text, const yaml_options& options) {
    detail::yaml::parser p(text, options);
    try {
        return p.documents();
    } catch (const detail::yaml::yaml_failure& f) {
        auto [line, column] = p.line_col(f.pos);
        return error(kcoro_errc::decode_error, "yaml: line " + std::to_string(line) + ", column " +
                                                   std::to_string(column) + ": " + f.what);
    } catch (const std::exception& e) { // e.g. a Boost.JSON size limit
        return error(kcoro_errc::decode_error, std::string("yaml: ") + e.what());
    }
}

result<boost::json::value> parse_yaml(std::string_view text, const yaml_options& options) {
    auto docs = parse_yaml_documents(text, options);
    if (!docs) {
        return docs.error();
    }
    if (docs->size() > 1) {
        return error(kcoro_errc::decode_error,
                     "yaml: expected a single document, found " + std::to_string(docs->size()));
    }
    if (docs->empty()) {
        return boost::json::value(nullptr);
    }
    return std::move(docs->front());
}

} // namespace kcoro
