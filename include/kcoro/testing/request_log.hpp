// What a kcoro::testing::test_server answered, one record per request that
// got a whole answer: the verb, the resource, the user and the status code,
// read from kcoro-apiserver's request log line. Watch streams are not listed
// (they end without a status code), nor the /kcoro/faults endpoint.
//
//   auto log = srv.requests();
//   CHECK(log.writes("configmaps") == 1);            // one patch, nothing else
//   CHECK(log.writes("configmaps", 409) == 0);
//   CHECK(log.count(kcoro::testing::match().verb("get").user("stamper")) == 0);   // reads: the cache
//
// Pure; a value type (test_server::requests() returns a copy).
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kcoro::testing {

struct request_record {
    std::string method;       // "PATCH"
    std::string verb;         // RequestInfo's: get list create update patch delete deletecollection
    std::string group;        // "" for the core group
    std::string resource;     // "configmaps"
    std::string subresource;  // "status", "scale", ""
    std::string namespace_;
    std::string name;
    std::string user;         // the authenticated user (test_server::client_for's name)
    std::string user_agent;
    std::string path;         // without the query
    int code = 0;

    /// create, update, patch, delete or deletecollection.
    bool is_write() const noexcept;
    /// From kcoro-apiserver's {"msg":"request",...} line; nullopt for other lines.
    static std::optional<request_record> from_log_line(const boost::json::object& line);
};

/// Which records to count; what is not set matches anything:
///   kcoro::testing::match().verb("patch").resource("configmaps").code(409)
class request_filter {
public:
    request_filter& verb(std::string v) { verb_ = std::move(v); return *this; }
    request_filter& resource(std::string v) { resource_ = std::move(v); return *this; }
    request_filter& subresource(std::string v) { subresource_ = std::move(v); return *this; }
    request_filter& in_namespace(std::string v) { namespace_ = std::move(v); return *this; }
    request_filter& name(std::string v) { name_ = std::move(v); return *this; }
    request_filter& user(std::string v) { user_ = std::move(v); return *this; }
    request_filter& code(int c) { code_ = c; return *this; }
    /// create, update, patch, delete, deletecollection only.
    request_filter& writes() { writes_only_ = true; return *this; }

    bool matches(const request_record& r) const noexcept;

private:
    std::string verb_, resource_, subresource_, namespace_, name_, user_;
    int code_ = 0;
    bool writes_only_ = false;
};

/// An empty filter to chain on.
inline request_filter match() { return request_filter(); }

class request_log {
public:
    void add(request_record r) { records_.push_back(std::move(r)); }
    void clear() noexcept { records_.clear(); }
    const std::vector<request_record>& records() const noexcept { return records_; }

    std::size_t count(const request_filter& f) const;
    /// Writes to `resource` ("" = any) answered with `code` (0 = any).
    std::size_t writes(std::string_view resource, int code = 0) const;
    /// Writes per (resource, status code): {("configmaps", 200): 1, ("configmaps", 409): 1}.
    std::map<std::pair<std::string, int>, std::size_t> writes_by_resource_and_code() const;
    /// One line per record ("PATCH /api/v1/namespaces/default/configmaps/x 200 stamper"),
    /// for a failing assertion's message.
    std::string describe() const;

private:
    std::vector<request_record> records_;
};

} // namespace kcoro::testing
