// Incremental decoder of a watch response body: a stream of JSON objects
// (one metav1.WatchEvent each, usually newline separated) arriving in
// arbitrary chunks. Push chunks with feed(), pull events with next(), and
// call finish() when the body ends.
//
// Memory: only the event being parsed is held (bounded by max_event_bytes)
// plus the decoded events of the current chunk until they are pulled; the
// stream as a whole is never buffered.
//
// Errors: garbage (not JSON, not an event, unknown type) is a
// kcoro_errc::decode_error; an event larger than the limit too; a body that
// ends inside an event is kcoro_errc::stream_truncated. After an error the
// decoder stays failed: feed() ignores input, next() reports the error once
// (after the events decoded before it), finish() returns it.
//
// Thread safety: none; one decoder per stream, used by one coroutine.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/watch_event.hpp>

#include <boost/json/stream_parser.hpp>

#include <cstddef>
#include <deque>
#include <optional>
#include <string_view>

namespace kcoro {

class watch_decoder {
public:
    static constexpr std::size_t default_max_event_bytes = 64 * 1024 * 1024;

    explicit watch_decoder(std::size_t max_event_bytes = default_max_event_bytes);

    watch_decoder(const watch_decoder&) = delete;
    watch_decoder& operator=(const watch_decoder&) = delete;

    /// Parse a chunk of the body; complete events become available to next().
    void feed(std::string_view chunk);

    /// The next decoded event or error; nullopt when more input is needed.
    std::optional<result<watch_event>> next();

    /// The body ended. Fails with stream_truncated when an event is partial,
    /// or with the decoder's earlier error.
    result<void> finish();

    bool failed() const noexcept { return static_cast<bool>(error_); }
    /// Bytes consumed so far (for error messages and metrics).
    std::size_t bytes_consumed() const noexcept { return consumed_; }
    /// Events decoded so far.
    std::size_t events_decoded() const noexcept { return decoded_; }

private:
    void fail(error e);
    void complete_value();
    /// Gives the next value an arena of its own, sized after the last event.
    void arm(std::size_t last_event_bytes);

    boost::json::stream_parser parser_;
    std::deque<result<watch_event>> ready_;
    std::optional<error> error_;
    bool error_reported_ = false;
    std::size_t max_event_bytes_;
    std::size_t current_bytes_ = 0;   // bytes of the value being parsed
    bool in_value_ = false;           // a non-whitespace byte of a value was consumed
    std::size_t consumed_ = 0;
    std::size_t decoded_ = 0;
};

} // namespace kcoro
