// Private to the YAML reader: the parser shared by yaml.cpp (block
// structure, documents) and yaml_scalar.cpp (scalars, flow collections).
#pragma once

#include <kcoro/core/yaml.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro::detail::yaml {

namespace json = boost::json;

// A recursive-descent parser over the whole text. Errors unwind through
// every level with this private exception; it is caught at the public entry
// points and never escapes (the API is errors-as-values).
struct yaml_failure {
    std::size_t pos;
    std::string what;
};

inline bool is_ws(char c) { return c == ' ' || c == '\t'; }
inline bool is_flow_indicator(char c) { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'; }

// CRLF and lone CR become LF so that every later step sees one line break;
// line numbers are unchanged.
inline std::string normalize(std::string_view text) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);
    }
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r') {
            out.push_back('\n');
            if (i + 1 < text.size() && text[i + 1] == '\n') {
                ++i;
            }
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

class parser {
public:
    parser(std::string_view text, const yaml_options& options) : s_(normalize(text)), options_(options) {}

    std::vector<json::value> documents();
    // Line and column (1-based) of a position, for error messages.
    std::pair<std::size_t, std::size_t> line_col(std::size_t pos) const;

private:
    std::string s_;
    yaml_options options_;
    std::size_t p_ = 0;  // current position
    std::size_t ls_ = 0; // start of the current line
    std::size_t depth_ = 0;

    struct depth_guard {
        parser& p;
        explicit depth_guard(parser& pp) : p(pp) {
            if (++p.depth_ > yaml_max_depth) {
                p.fail("nesting deeper than " + std::to_string(yaml_max_depth) + " levels");
            }
        }
        ~depth_guard() { --p.depth_; }
        depth_guard(const depth_guard&) = delete;
        depth_guard& operator=(const depth_guard&) = delete;
    };

    bool eof() const { return p_ >= s_.size(); }
    char cur() const { return eof() ? '\0' : s_[p_]; }
    char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
    bool ws_or_end(std::size_t i) const { return i >= s_.size() || s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n'; }
    int col() const { return static_cast<int>(p_ - ls_); }
    [[noreturn]] void fail(std::string what) const { throw yaml_failure{p_, std::move(what)}; }
    [[noreturn]] void fail_at(std::size_t pos, std::string what) const { throw yaml_failure{pos, std::move(what)}; }

    void advance() {
        if (s_[p_] == '\n') {
            ++p_;
            ls_ = p_;
        } else {
            ++p_;
        }
    }
    void skip_inline_ws() {
        while (!eof() && is_ws(s_[p_])) {
            ++p_;
        }
    }
    // After inline whitespace: nothing but an optional comment before the line break.
    bool at_line_end() const { return eof() || cur() == '\n' || cur() == '#'; }
    bool at_doc_marker() const {
        return col() == 0 && p_ + 3 <= s_.size() &&
               (s_.compare(p_, 3, "---") == 0 || s_.compare(p_, 3, "...") == 0) && ws_or_end(p_ + 3);
    }
    // Column of the content at p_, or -1 at the end of the document.
    int cur_indent() const { return (eof() || at_doc_marker()) ? -1 : col(); }

    void finish_line();
    void skip_blank_lines();
    void next_content_line() {
        finish_line();
        skip_blank_lines();
    }

    bool line_has_mapping_key() const;
    std::size_t scan_quoted_end(std::size_t i) const;

    json::value parse_block_node(int parent_indent);
    json::value parse_block_sequence(int indent);
    json::value parse_block_mapping(int indent);
    json::value parse_value_below(int indent);
    json::value parse_inline_value(int parent_indent);
    std::string parse_key();
    std::string parse_plain(int parent_indent, bool flow);
    std::string read_plain_run(bool flow);
    std::string parse_double_quoted();
    std::string parse_single_quoted();
    void fold_line_break(std::string& out, std::size_t keep);
    std::string parse_block_scalar(int parent_indent);
    json::value parse_flow_node();
    void skip_flow_ws();
    bool skip_tag();
    json::value resolve(std::string_view text) const;
    void reject_anchor_alias() const {
        if (cur() == '&') {
            fail("anchors (&name) are not supported");
        }
        if (cur() == '*') {
            fail("aliases (*name) are not supported");
        }
    }
};

/// YAML 1.2 core-schema resolution of a plain scalar's text.
json::value resolve_yaml_scalar(std::string_view text);

} // namespace kcoro::detail::yaml
