#include "commands.hpp"

#include <kcoro/client/discovery_client.hpp>
#include <kcoro/core/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <ostream>

namespace kcoro::ctl {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
}

int report(std::ostream& err, const error& e) {
    if (const auto* st = e.api_status()) {
        err << "Error from server (" << (st->reason.empty() ? std::to_string(st->code) : st->reason)
            << "): " << e.message() << "\n";
    } else {
        err << "error: " << e.message() << "\n";
    }
    return 1;
}

std::string namespace_for(const resource_info& info, const ctl_args& a, const client::client& c,
                          std::string_view from_object = {}) {
    if (!info.namespaced) return {};
    if (!from_object.empty()) return std::string(from_object);
    if (!a.ns.empty()) return a.ns;
    return c.config().ns.empty() ? "default" : c.config().ns;
}

void print_object(std::ostream& out, const ctl_args& a, const resource_info& info, const json::object& obj) {
    if (a.output_json) {
        out << json::serialize(obj) << "\n";
    } else {
        out << lower(info.kind) << "/" << name_of(obj) << "\n";
    }
}

asio::awaitable<int> from_file(const ctl_args& a, client::client& c, std::ostream& out, std::ostream& err) {
    auto text = client::environment::read_real_file(a.file);
    if (!text) co_return report(err, text.error());
    auto objects = read_objects(*text);
    if (!objects) co_return report(err, objects.error().with_context(a.file));
    int rc = 0;
    for (const auto& obj : *objects) {
        auto gvk = group_version_kind::from(api_version_of(obj), kind_of(obj));
        auto info = co_await c.discovery().find(gvk);
        if (!info) {
            rc = report(err, info.error());
            continue;
        }
        auto ns = namespace_for(*info, a, c, namespace_of(obj));
        std::string what = lower(info->kind) + "/" + std::string(name_of(obj));
        result<object_ptr> r = error(kcoro_errc::invalid_argument, "unreachable");
        const char* done = "";
        if (a.cmd == command::create) {
            create_options co;
            r = co_await c.create(info->gvr, ns, obj, co);
            done = "created";
        } else if (a.cmd == command::apply) {
            json::object copy = obj;
            if (info->namespaced) set_namespace(copy, ns);
            std::string manager = "kcoro-ctl";
            r = co_await c.apply(info->gvr, copy, manager, a.force_conflicts);
            done = "serverside-applied";
        } else {
            object_key key{ns, std::string(name_of(obj))};
            delete_options d;
            r = co_await c.remove(info->gvr, key, d);
            done = "deleted";
        }
        if (!r) {
            rc = report(err, r.error());
            continue;
        }
        if (a.output_json) {
            out << json::serialize(**r) << "\n";
        } else {
            if (a.cmd == command::create) what = lower(info->kind) + "/" + std::string(name_of(**r));
            out << what << " " << done << "\n";
        }
    }
    co_return rc;
}

} // namespace

result<std::vector<json::object>> read_objects(std::string_view text) {
    auto docs = parse_yaml_documents(text);
    if (!docs) return docs.error();
    std::vector<json::object> out;
    for (auto& d : *docs) {
        if (d.is_null()) continue;  // an empty document ("---" at the end)
        if (!d.is_object()) return error(kcoro_errc::decode_error, "a document is not an object");
        auto& o = d.as_object();
        if (kind_of(o) == "List") {
            if (auto* items = o.if_contains("items"); items && items->is_array()) {
                for (auto& item : items->as_array()) {
                    if (!item.is_object()) return error(kcoro_errc::decode_error, "a List item is not an object");
                    out.push_back(std::move(item.as_object()));
                }
            }
            continue;
        }
        if (api_version_of(o).empty() || kind_of(o).empty()) {
            return error(kcoro_errc::decode_error, "an object lacks apiVersion or kind");
        }
        out.push_back(std::move(o));
    }
    return out;
}

asio::awaitable<int> run_command(const ctl_args& a, client::client& c, std::ostream& out, std::ostream& err) {
    if (a.cmd == command::create || a.cmd == command::apply || (a.cmd == command::remove && !a.file.empty())) {
        co_return co_await from_file(a, c, out, err);
    }
    auto info = co_await c.discovery().resolve(a.resource);
    if (!info) co_return report(err, info.error());
    auto ns = namespace_for(*info, a, c);
    object_key key{ns, a.name};
    switch (a.cmd) {
    case command::get: {
        get_options o;
        auto r = co_await c.get(info->gvr, key, o);
        if (!r) co_return report(err, r.error());
        print_object(out, a, *info, **r);
        co_return 0;
    }
    case command::list: {
        list_options o;
        o.label_selector = a.selector;
        std::string scope = a.all_namespaces ? std::string() : ns;
        auto r = co_await c.list_all(info->gvr, scope, o);
        if (!r) co_return report(err, r.error());
        if (a.output_json) {
            json::array items;
            for (const auto& item : r->items) items.push_back(*item);
            json::object list{{"apiVersion", "v1"}, {"kind", "List"},
                              {"metadata", json::object{{"resourceVersion", r->resource_version}}},
                              {"items", std::move(items)}};
            out << json::serialize(list) << "\n";
        } else {
            for (const auto& item : r->items) print_object(out, a, *info, *item);
        }
        co_return 0;
    }
    case command::watch: {
        watch_options o;
        o.label_selector = a.selector;
        o.resource_version = a.resource_version;
        if (!a.name.empty()) o.field_selector = "metadata.name=" + a.name;
        std::string scope = a.all_namespaces ? std::string() : ns;
        auto w = co_await c.watch(info->gvr, scope, o);
        if (!w) co_return report(err, w.error());
        for (;;) {
            auto ev = co_await w->next();
            if (!ev) co_return report(err, ev.error());
            if (!*ev) co_return 0;
            const auto& e = **ev;
            if (a.output_json) {
                out << json::serialize(json::object{{"type", to_string(e.type)}, {"object", *e.object}}) << "\n";
            } else if (e.type == watch_event_type::error) {
                out << "ERROR " << e.to_error().message() << "\n";
            } else {
                out << to_string(e.type) << " " << lower(info->kind) << "/" << name_of(*e.object) << " "
                    << e.resource_version << "\n";
            }
            out.flush();
        }
    }
    case command::patch: {
        patch_options o;
        o.type = a.type;
        auto r = co_await c.patch(info->gvr, key, a.patch, o);
        if (!r) co_return report(err, r.error());
        if (a.output_json) out << json::serialize(**r) << "\n";
        else out << lower(info->kind) << "/" << a.name << " patched\n";
        co_return 0;
    }
    case command::remove: {
        delete_options o;
        auto r = co_await c.remove(info->gvr, key, o);
        if (!r) co_return report(err, r.error());
        out << lower(info->kind) << "/" << a.name << " deleted\n";
        co_return 0;
    }
    default:
        co_return 1;
    }
}

} // namespace kcoro::ctl
