// The idle-RSS floor of the stack kcoro is built on (issue 12): a C++
// program linked with nothing but libstdc++ and Debian's OpenSSL 3 that
// opens one TLS connection to kcoro-apiserver, sends one GET, and reports
// its RSS at each step. Any controller on this stack holds at least this
// much while it keeps one connection open (kcoro idles with four: two watches,
// two pooled). No kcoro code is linked, on purpose.
//
//   build/test/bench/tls_floor_bench build/src/kcoro-apiserver/kcoro-apiserver [CONTROLLER [SECONDS]]
//
// With CONTROLLER (a kcoro manager binary taking --kubeconfig, e.g.
// build/src/examples/configmap-mirror) it is started against the same
// server, and its RSS after SECONDS (default 5) of idling is printed with
// its distance to the floor: both figures from one run (issue 25).
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

// VmRSS, RssAnon, RssFile of a process in kB.
struct rss_kb {
    long rss = 0, anon = 0, file = 0;
};
rss_kb read_rss(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/status");
    std::string key;
    rss_kb r;
    while (in >> key) {
        long v = 0;
        if (key == "VmRSS:" && in >> v) r.rss = v;
        else if (key == "RssAnon:" && in >> v) r.anon = v;
        else if (key == "RssFile:" && in >> v) r.file = v;
        in.ignore(1 << 20, '\n');
    }
    return r;
}

void report(const char* step) {
    std::ifstream in("/proc/self/status");
    std::string line, out;
    while (std::getline(in, line)) {
        for (const char* f : {"VmRSS:", "RssAnon:", "RssFile:"}) {
            if (line.rfind(f, 0) == 0) {
                std::string v = line.substr(std::strlen(f));
                v.erase(0, v.find_first_not_of(" \t"));
                out += std::string(" ") + f + " " + v;
            }
        }
    }
    std::printf("%-34s%s\n", step, out.c_str());
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: tls_floor_bench KCORO_APISERVER [CONTROLLER [SECONDS]]\n");
        return 2;
    }
    report("start (libstdc++, libssl loaded):");
    const std::string kubeconfig = "/tmp/tls-floor-" + std::to_string(getpid()) + ".kubeconfig";
    std::vector<std::string> args{argv[1], "--listen", "127.0.0.1:0", "--tls", "--write-kubeconfig", kubeconfig};
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t server = 0;
    if (posix_spawn(&server, argv[1], &fa, nullptr, cargs.data(), environ) != 0) {
        std::perror("posix_spawn");
        return 1;
    }
    posix_spawn_file_actions_destroy(&fa);
    int port = 0;
    for (int i = 0; i < 500 && port == 0; ++i) {
        std::ifstream in(kubeconfig);
        std::string line;
        while (std::getline(in, line)) {
            if (auto p = line.find("server: https://127.0.0.1:"); p != std::string::npos) {
                port = std::atoi(line.c_str() + p + std::strlen("server: https://127.0.0.1:"));
            }
        }
        if (port == 0) usleep(20000);  // polling a file another process writes: no event to wait on
    }
    auto stop = [&](int rc) {
        kill(server, SIGTERM);
        waitpid(server, nullptr, 0);
        std::remove(kubeconfig.c_str());
        return rc;
    };
    if (port == 0) {
        std::fprintf(stderr, "kcoro-apiserver did not start\n");
        return stop(1);
    }

    OPENSSL_init_ssl(0, nullptr);
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);  // the floor, not trust
    report("OPENSSL_init_ssl + one SSL_CTX:");

    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        std::perror("connect");
        return stop(1);
    }
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
        ERR_print_errors_fp(stderr);
        return stop(1);
    }
    const std::string req = "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    SSL_write(ssl, req.data(), static_cast<int>(req.size()));
    char buf[4096];
    const int got = SSL_read(ssl, buf, sizeof buf);
    report("one TLS connection, one GET:");
    std::printf("answer: %.*s\n", got > 12 ? 12 : 0, buf);
    const rss_kb floor = read_rss("self");
    if (argc >= 3) {
        // The controller against the same server, idle: how far above the floor.
        const int idle_s = argc >= 4 ? std::atoi(argv[3]) : 5;
        std::vector<std::string> cargs2{argv[2], "--kubeconfig", kubeconfig, "--metrics-bind-address", "0",
                                        "--health-probe-bind-address", "0"};
        std::vector<char*> cv;
        for (auto& a : cargs2) cv.push_back(a.data());
        cv.push_back(nullptr);
        posix_spawn_file_actions_t cfa;
        posix_spawn_file_actions_init(&cfa);
        posix_spawn_file_actions_addopen(&cfa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&cfa, 2, "/dev/null", O_WRONLY, 0);
        pid_t ctl = 0;
        if (posix_spawn(&ctl, argv[2], &cfa, nullptr, cv.data(), environ) != 0) {
            std::perror("posix_spawn controller");
            return stop(1);
        }
        posix_spawn_file_actions_destroy(&cfa);
        // Idling is the measurement itself: nothing to wait on but time.
        std::this_thread::sleep_for(std::chrono::seconds(idle_s));
        const rss_kb c = read_rss(std::to_string(ctl));
        std::printf("%-34s VmRSS: %ld kB RssAnon: %ld kB RssFile: %ld kB\n", "controller, idle:", c.rss, c.anon,
                    c.file);
        std::printf("controller above the floor: %+.1f MB RSS (%+.1f anon, %+.1f file)\n",
                    (c.rss - floor.rss) / 1024.0, (c.anon - floor.anon) / 1024.0, (c.file - floor.file) / 1024.0);
        kill(ctl, SIGTERM);
        waitpid(ctl, nullptr, 0);
    }
    SSL_free(ssl);
    close(fd);
    SSL_CTX_free(ctx);
    return stop(got > 0 ? 0 : 1);
}
