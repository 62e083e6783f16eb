#include <kcoro/core/watch_decoder.hpp>

#include <kcoro/core/json_arena.hpp>

#include <algorithm>
#include <string>

namespace kcoro {
namespace json = boost::json;

namespace {

json::parse_options stream_options() {
    json::parse_options o;
    // Objects with managedFields or CRD schemas nest deeper than Boost.JSON's
    // default of 32; the stream parser keeps its own stack, so this is safe.
    o.max_depth = 512;
    return o;
}

bool has_non_whitespace(std::string_view s) noexcept {
    return s.find_first_not_of(" \t\r\n") != std::string_view::npos;
}

} // namespace

watch_decoder::watch_decoder(std::size_t max_event_bytes)
    : parser_(json::storage_ptr(), stream_options()), max_event_bytes_(max_event_bytes) {
    arm(0);
}

void watch_decoder::arm(std::size_t last_event_bytes) {
    // Each event's tree in an arena of its own (core/json_arena.hpp), sized
    // after the last event: the next is likely alike.
    parser_.reset(object_arena(std::min<std::size_t>(last_event_bytes, 32 * 1024)));
}

void watch_decoder::fail(error e) {
    if (!error_) {
        error_ = std::move(e);
    }
}

void watch_decoder::complete_value() {
    auto v = parser_.release();
    arm(current_bytes_);
    current_bytes_ = 0;
    in_value_ = false;
    auto ev = decode_watch_event(std::move(v));
    if (!ev) {
        fail(ev.error().with_context("at byte " + std::to_string(consumed_)));
        return;
    }
    ++decoded_;
    ready_.push_back(std::move(ev));
}

void watch_decoder::feed(std::string_view chunk) {
    while (!chunk.empty() && !error_) {
        boost::system::error_code ec;
        std::size_t n = parser_.write_some(chunk.data(), chunk.size(), ec);
        auto used = chunk.substr(0, n);
        chunk.remove_prefix(n);
        consumed_ += n;
        if (ec) {
            fail(error(kcoro_errc::decode_error,
                       "watch stream: invalid JSON near byte " + std::to_string(consumed_) + ": " + ec.message()));
            return;
        }
        if (!in_value_ && has_non_whitespace(used)) {
            in_value_ = true;
        }
        // Whitespace between events does not count against the limit.
        if (in_value_) {
            current_bytes_ += n;
            if (current_bytes_ > max_event_bytes_) {
                fail(error(kcoro_errc::decode_error, "watch stream: event larger than " +
                                                         std::to_string(max_event_bytes_) + " bytes"));
                return;
            }
        }
        if (parser_.done()) {
            complete_value();
        } else if (n == 0) {
            // Cannot happen with a conforming parser; never spin on it.
            fail(error(kcoro_errc::decode_error, "watch stream: parser made no progress"));
        }
    }
}

std::optional<result<watch_event>> watch_decoder::next() {
    if (!ready_.empty()) {
        auto ev = std::move(ready_.front());
        ready_.pop_front();
        return ev;
    }
    if (error_ && !error_reported_) {
        error_reported_ = true;
        return result<watch_event>(*error_);
    }
    return std::nullopt;
}

result<void> watch_decoder::finish() {
    if (error_) {
        return *error_;
    }
    if (!in_value_) {
        return {};
    }
    // A top-level number or literal is only complete at the end of input.
    boost::system::error_code ec;
    parser_.finish(ec);
    if (ec || !parser_.done()) {
        fail(error(kcoro_errc::stream_truncated,
                   "watch stream ended inside an event after " + std::to_string(consumed_) + " bytes"));
        return *error_;
    }
    complete_value();
    if (error_) {
        return *error_;
    }
    return {};
}

} // namespace kcoro
