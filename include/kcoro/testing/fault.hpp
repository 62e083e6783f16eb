// A fault a kcoro::testing::test_server injects (kcoro-apiserver's fault
// table, docs/apiserver.md). A rule matches a request by verb, resource and
// name ("" = any) and fires `count` times (0 = until cleared):
//   fail               answer `code` with a Status (and Retry-After when set);
//   delay              answer normally after `delay` on the server's clock
//                      (with a manual clock: when the test advances it);
//   drop_after_commit  perform the write, then close the connection without
//                      answering (the lost acknowledgement).
//
//   srv.inject(kcoro::testing::fault::fail("patch", "configmaps", 409));
//   srv.inject(kcoro::testing::fault::fail("update", "leases", 503).times(3).retry_after(1));
//
// Pure value type.
#pragma once

#include <chrono>
#include <string>

namespace kcoro::testing {

enum class fault_action { fail, delay, drop_after_commit };

struct fault {
    fault_action action = fault_action::fail;
    std::string verb;      // "" = any: get list watch create update patch delete deletecollection
    std::string resource;  // "" = any: "configmaps"
    std::string name;      // "" = any
    int count = 1;         // times to fire; 0 = until cleared
    int code = 500;        // fail: the HTTP code (the Status reason follows from it)
    int retry_after_seconds = 0;
    std::string message;   // fail: the Status message (a default when empty)
    std::chrono::milliseconds delay{0};

    static fault fail(std::string verb, std::string resource, int code) {
        fault f;
        f.verb = std::move(verb);
        f.resource = std::move(resource);
        f.code = code;
        return f;
    }
    static fault delayed(std::string verb, std::string resource, std::chrono::milliseconds d) {
        fault f;
        f.action = fault_action::delay;
        f.verb = std::move(verb);
        f.resource = std::move(resource);
        f.delay = d;
        return f;
    }
    static fault drop_after_commit(std::string verb, std::string resource) {
        fault f;
        f.action = fault_action::drop_after_commit;
        f.verb = std::move(verb);
        f.resource = std::move(resource);
        return f;
    }
    fault& times(int n) & { count = n; return *this; }
    fault&& times(int n) && { count = n; return std::move(*this); }
    fault& named(std::string n) & { name = std::move(n); return *this; }
    fault&& named(std::string n) && { name = std::move(n); return std::move(*this); }
    fault& retry_after(int seconds) & { retry_after_seconds = seconds; return *this; }
    fault&& retry_after(int seconds) && { retry_after_seconds = seconds; return std::move(*this); }
    fault& with_message(std::string m) & { message = std::move(m); return *this; }
    fault&& with_message(std::string m) && { message = std::move(m); return std::move(*this); }
};

} // namespace kcoro::testing
