#include "args.hpp"

namespace kcoro::ctl {

const char* usage() noexcept {
    return "usage: kcoro-ctl [flags] COMMAND ...\n"
           "  get RESOURCE NAME            read one object\n"
           "  list RESOURCE                list objects (-l selector, -A all namespaces)\n"
           "  watch RESOURCE [NAME]        stream events (--resource-version RV)\n"
           "  create -f FILE               create the objects in a YAML/JSON file (multi-document)\n"
           "  apply -f FILE                server-side apply (fieldManager=kcoro-ctl, --force-conflicts)\n"
           "  patch RESOURCE NAME -p PATCH [--type merge|json|strategic]\n"
           "  delete RESOURCE NAME | delete -f FILE\n"
           "flags: --kubeconfig FILE, --context NAME, -n/--namespace NS, -o json, -l/--selector SEL\n";
}

result<ctl_args> parse_args(const std::vector<std::string>& argv) {
    ctl_args a;
    std::vector<std::string> positional;
    auto bad = [](std::string what) { return error(kcoro_errc::invalid_argument, std::move(what)); };
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_inline = false;
        if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
            value = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
            has_inline = true;
        }
        auto take = [&](std::string& out) -> result<void> {
            if (has_inline) {
                out = value;
                return {};
            }
            if (i + 1 >= argv.size()) {
                return bad("flag " + arg + " needs a value");
            }
            out = argv[++i];
            return {};
        };
        result<void> r;
        if (arg == "--kubeconfig") r = take(a.kubeconfig);
        else if (arg == "--context") r = take(a.context);
        else if (arg == "-n" || arg == "--namespace") r = take(a.ns);
        else if (arg == "-f" || arg == "--filename") r = take(a.file);
        else if (arg == "-l" || arg == "--selector") r = take(a.selector);
        else if (arg == "-p" || arg == "--patch") r = take(a.patch);
        else if (arg == "--resource-version") r = take(a.resource_version);
        else if (arg == "-A" || arg == "--all-namespaces") a.all_namespaces = true;
        else if (arg == "--force-conflicts") a.force_conflicts = true;
        else if (arg == "-o" || arg == "--output") {
            std::string o;
            r = take(o);
            if (r && o != "json") return bad("unsupported output format \"" + o + "\" (only json)");
            a.output_json = true;
        } else if (arg == "--type") {
            std::string t;
            r = take(t);
            if (r) {
                if (t == "merge") a.type = patch_type::merge;
                else if (t == "json") a.type = patch_type::json;
                else if (t == "strategic") a.type = patch_type::strategic_merge;
                else return bad("--type must be merge, json or strategic, not \"" + t + "\"");
            }
        } else if (arg.size() > 1 && arg.front() == '-') {
            return bad("unknown flag " + arg);
        } else {
            positional.push_back(arg);
        }
        if (!r) return r.error();
    }
    if (positional.empty()) {
        return bad("no command given");
    }
    const std::string& cmd = positional.front();
    std::size_t want_min = 0, want_max = 0;
    if (cmd == "get") { a.cmd = command::get; want_min = want_max = 2; }
    else if (cmd == "list") { a.cmd = command::list; want_min = want_max = 1; }
    else if (cmd == "watch") { a.cmd = command::watch; want_min = 1; want_max = 2; }
    else if (cmd == "create") { a.cmd = command::create; }
    else if (cmd == "apply") { a.cmd = command::apply; }
    else if (cmd == "patch") { a.cmd = command::patch; want_min = want_max = 2; }
    else if (cmd == "delete") { a.cmd = command::remove; want_min = a.file.empty() ? 2 : 0; want_max = want_min; }
    else return bad("unknown command \"" + cmd + "\"");
    std::size_t n = positional.size() - 1;
    if (n < want_min || n > want_max) {
        return bad(cmd + ": wrong number of arguments");
    }
    if (n >= 1) a.resource = positional[1];
    if (n >= 2) a.name = positional[2];
    if ((a.cmd == command::create || a.cmd == command::apply) && a.file.empty()) {
        return bad(cmd + " needs -f FILE");
    }
    if (a.cmd == command::patch && a.patch.empty()) {
        return bad("patch needs -p PATCH");
    }
    return a;
}

} // namespace kcoro::ctl
