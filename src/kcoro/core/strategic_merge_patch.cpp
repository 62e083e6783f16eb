#include <kcoro/core/strategic_merge_patch.hpp>

#include "go_value.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <optional>
#include <utility>

namespace kcoro {
namespace json = boost::json;
using detail::go_equal;
using detail::go_kind;
using detail::go_s;
using detail::go_type;
using detail::go_v;
using detail::kind_of_value;

namespace {

constexpr std::string_view directive_marker = "$patch";
constexpr std::string_view retain_keys_directive = "$retainKeys";

error make_status_error(int code, std::string reason, std::string message) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(message);
    s.reason = std::move(reason);
    s.code = code;
    if (code == 422) s.details = status_details{};
    return error::from_status(std::move(s));
}
error bad_request(std::string m) { return make_status_error(400, "BadRequest", std::move(m)); }

list_strategy keyed(std::string key, std::vector<std::string> ssa_keys = {}) {
    list_strategy s;
    s.type = list_type::map;
    s.map_keys = ssa_keys.empty() ? std::vector<std::string>{key} : std::move(ssa_keys);
    s.merge_key = std::move(key);
    return s;
}

void add_metadata_lists(list_strategies& t) {
    t["metadata.ownerReferences"] = keyed("uid");
    t["metadata.finalizers"] = list_strategy{list_type::set, {}, {}};
}

// corev1.PodSpec and Container patch strategies (k8s.io/api/core/v1 types.go).
void add_pod_spec(list_strategies& t, const std::string& p) {
    for (const char* c : {"containers", "initContainers", "ephemeralContainers"}) {
        std::string cp = p + "." + c;
        t[cp] = keyed("name");
        t[cp + ".ports"] = keyed("containerPort", {"containerPort", "protocol"});
        t[cp + ".env"] = keyed("name");
        t[cp + ".volumeMounts"] = keyed("mountPath");
        t[cp + ".volumeDevices"] = keyed("devicePath");
    }
    t[p + ".volumes"] = keyed("name");
    t[p + ".imagePullSecrets"] = keyed("name");
    t[p + ".hostAliases"] = keyed("ip");
    t[p + ".topologySpreadConstraints"] = keyed("topologyKey", {"topologyKey", "whenUnsatisfiable"});
    t[p + ".schedulingGates"] = keyed("name");
    t[p + ".resourceClaims"] = keyed("name");
    // tolerations, readinessGates: no patch strategy → replaced whole.
}

list_strategies make_table(std::string_view kind) {
    list_strategies t;
    add_metadata_lists(t);
    if (kind == "Pod") {
        add_pod_spec(t, "spec");
        t["status.conditions"] = keyed("type");
    } else if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "DaemonSet" ||
               kind == "Job" || kind == "ReplicationController" || kind == "PodTemplate") {
        add_pod_spec(t, kind == "PodTemplate" ? "template.spec" : "spec.template.spec");
        t["status.conditions"] = keyed("type");
    } else if (kind == "CronJob") {
        add_pod_spec(t, "spec.jobTemplate.spec.template.spec");
    } else if (kind == "Service") {
        t["spec.ports"] = keyed("port", {"port", "protocol"});
    } else if (kind == "ServiceAccount") {
        t["secrets"] = keyed("name");
        t["imagePullSecrets"] = keyed("name");
    } else if (kind == "Namespace") {
        t["status.conditions"] = keyed("type");
    }
    return t;
}

// --- errors (mergepatch/errors.go) and their HTTP mapping (handlers/patch.go
// interpretStrategicMergePatchError) ---------------------------------------------
// The sentinel errors become 400 or 422; every other merge error is a plain Go
// error, which the handler answers as a 500 with no reason and the error text
// as the message (responsewriters.ErrorToAPIStatus).

error plain(std::string m) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(m);
    s.code = 500;
    return error::from_status(std::move(s));
}
error err_primitive_list() { return bad_request("invalid patch format of primitive list"); }
error err_retain_keys() { return bad_request("invalid patch format of retainKeys"); }
error err_set_element_order() { return bad_request("invalid patch format of setElementOrder list"); }
error err_list_of_lists() {
    return make_status_error(422, "Invalid", "the server rejected our request due to an error in our request");
}
error err_no_merge_key(const json::value& m, std::string_view key) {
    return plain("map: " + go_v(m) + " does not contain declared merge key: " + std::string(key));
}
error err_bad_arg_type(std::string_view expected, const json::value& actual) {
    return plain("expected a " + std::string(expected) + ", but received a " + go_type(actual));
}
error err_bad_patch_type(const json::value& t, const json::value& m) {
    return plain("unknown patch type: " + go_s(t) + " in map: " + go_v(m));
}

constexpr std::string_view map_type = "map[string]interface {}";
constexpr std::string_view slice_type = "[]interface {}";

// strings.SplitN(s, "/", 2) with the prefix check of extractKey.
std::optional<std::string> extract_key(std::string_view s, std::string_view prefix) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return std::nullopt;
    return std::string(s.substr(slash + 1));
}

// --- the merge (strategicpatch/patch.go, server side: MergeParallelList and
// IgnoreUnmatchedNulls on). Followed function by function; names match. ----------

constexpr std::string_view delete_prefix_no_slash = "$deleteFromPrimitiveList";
constexpr std::string_view order_prefix_no_slash = "$setElementOrder";

struct merger {
    const list_strategies& table;

    // forkedjson.LookupPatchMetadata from our table: the list's merge key and
    // whether its strategy is "merge".
    struct field_meta {
        bool merge = false;
        std::string merge_key;
    };
    field_meta lookup(const std::string& path) const {
        auto it = table.find(path);
        if (it == table.end() || it->second.type == list_type::atomic) return {};
        return {true, it->second.type == list_type::map ? it->second.merge_key : std::string{}};
    }

    static std::string child_path(const std::string& path, std::string_view k) {
        return path.empty() ? std::string(k) : path + "." + std::string(k);
    }

    // sliceElementType: every element of the slices has one Go type, not a slice.
    static result<go_kind> slice_element_type(std::initializer_list<const json::array*> slices) {
        std::optional<go_kind> prev;
        for (const auto* s : slices) {
            if (!s) continue;
            for (const auto& v : *s) {
                auto k = kind_of_value(v);
                if (!prev) {
                    prev = k;
                    if (k == go_kind::slice) return err_list_of_lists();
                } else if (*prev != k) {
                    std::string all = "[";
                    bool first = true;
                    for (const auto* s2 : slices) {
                        if (!first) all += ' ';
                        first = false;
                        all += go_v(s2 ? json::value(*s2) : json::value(json::array{}));
                    }
                    return plain("list element types are not identical: " + all + "]");
                }
            }
        }
        if (!prev) return plain("no elements in any of the given slices");
        return *prev;
    }

    // index(): position of val in l, comparing merge-key values for maps
    // (an absent key reads as nil, as a Go map lookup does).
    static const json::value* index_value(const json::value& item, const std::string& key, go_kind kind) {
        if (kind != go_kind::map) return &item;
        const auto* o = item.if_object();
        return o ? o->if_contains(key) : nullptr;
    }
    static bool same_value(const json::value* a, const json::value* b) {
        static const json::value nil;
        return go_equal(a ? *a : nil, b ? *b : nil);
    }
    // An order list as index() reads it: the merge-key values (or the
    // items, for primitives), so the list itself need not be kept.
    using order_keys = std::vector<json::value>;
    static order_keys keys_of(const json::array& l, const std::string& key, go_kind kind) {
        order_keys out;
        out.reserve(l.size());
        for (const auto& item : l) {
            const json::value* v = index_value(item, key, kind);
            out.push_back(v ? *v : json::value(nullptr));
        }
        return out;
    }
    static long index_of(const order_keys& keys, const json::value& val, const std::string& key, go_kind kind) {
        const json::value* want = index_value(val, key, kind);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (same_value(want, &keys[i])) return static_cast<long>(i);
        }
        return -1;
    }

    static std::optional<error> validate_merge_key_in_lists(const std::string& key,
                                                             std::initializer_list<const json::array*> lists) {
        for (const auto* l : lists) {
            for (const auto& item : *l) {
                const auto* m = item.if_object();
                if (!m) return err_bad_arg_type(map_type, item);
                if (!m->contains(key)) return err_no_merge_key(item, key);
            }
        }
        return std::nullopt;
    }

    // normalizeSliceOrder: sort by the order list (sort.SliceStable; the
    // lists are short, so Go's insertion sort, with its less function).
    // `validate`: the order list's items, when they still need the merge-key check.
    static result<json::array> normalize_slice_order(json::array to_sort, const order_keys& order,
                                                     const json::array* validate, const std::string& key,
                                                     go_kind kind) {
        json::array to_delete;
        if (kind == go_kind::map) {
            static const json::array none;
            if (auto e = validate_merge_key_in_lists(key, {&to_sort, validate ? validate : &none})) return *e;
            json::array keep;
            for (auto& v : to_sort) {
                const auto& m = v.get_object();
                const auto* d = m.if_contains(directive_marker);
                if (d && d->is_string() && d->get_string() == "delete") {
                    to_delete.push_back(std::move(v));
                } else {
                    keep.push_back(std::move(v));
                }
            }
            to_sort = std::move(keep);
        }
        auto less = [&](const json::value& a, const json::value& b) {
            auto ia = index_of(order, a, key, kind);
            if (ia >= 0) {
                auto ib = index_of(order, b, key, kind);
                if (ib >= 0) return ia < ib;
            }
            return true;
        };
        for (std::size_t i = 1; i < to_sort.size(); ++i) {
            for (std::size_t j = i; j > 0 && less(to_sort[j], to_sort[j - 1]); --j) {
                std::swap(to_sort[j], to_sort[j - 1]);
            }
        }
        for (auto& v : to_delete) to_sort.push_back(std::move(v));
        return to_sort;
    }

    // mergeSortedSlice: server-only items (left) woven into the patch items
    // (right) by their order in the live list; items the live list lacks
    // come first.
    static json::array merge_sorted_slice(json::array left, json::array right, const order_keys& server_order,
                                          const std::string& key, go_kind kind) {
        json::array out;
        out.reserve(left.size() + right.size());
        std::size_t i = 0, j = 0;
        const std::size_t size = left.size() + right.size();
        for (std::size_t k = 0; k < size; ++k) {
            if (i >= left.size() && j < right.size()) {
                out.push_back(std::move(right[j++]));
            } else if (j >= right.size() && i < left.size()) {
                out.push_back(std::move(left[i++]));
            } else {
                auto li = index_of(server_order, left[i], key, kind);
                auto ri = index_of(server_order, right[j], key, kind);
                if (li >= 0 && ri >= 0 && li < ri) {
                    out.push_back(std::move(left[i++]));
                } else {
                    out.push_back(std::move(right[j++]));
                }
            }
        }
        return out;
    }

    // `server_order`: the live list's keys, taken before the merge; every
    // live item passed partition_maps' merge-key check already.
    static result<json::array> normalize_element_order(json::array patch, json::array server_only,
                                                       const json::array& patch_order,
                                                       const order_keys& server_order, const std::string& key,
                                                       go_kind kind) {
        auto p = normalize_slice_order(std::move(patch), keys_of(patch_order, key, kind), &patch_order, key, kind);
        if (!p) return p.error();
        auto so = normalize_slice_order(std::move(server_only), server_order, nullptr, key, kind);
        if (!so) return so.error();
        return merge_sorted_slice(std::move(*so), std::move(*p), server_order, key, kind);
    }

    // findMapInSliceBasedOnKeyValue
    static result<long> find_map(const json::array& l, const std::string& key, const json::value& value) {
        for (std::size_t i = 0; i < l.size(); ++i) {
            const auto* m = l[i].if_object();
            if (!m) return plain("value for key " + std::to_string(i) + " is not a map.");
            const auto* v = m->if_contains(key);
            if (v && go_equal(*v, value)) return static_cast<long>(i);
        }
        return -1L;
    }

    static void partition_primitives(json::array merged, const json::array& by, json::array& in,
                                     json::array& out) {
        for (auto& v : merged) {
            bool found = std::any_of(by.begin(), by.end(), [&](const json::value& b) { return go_equal(b, v); });
            (found ? in : out).push_back(std::move(v));
        }
    }

    static std::optional<error> partition_maps(json::array merged, const json::array& by,
                                               const std::string& key, json::array& in, json::array& out) {
        for (auto& v : merged) {
            const auto* m = v.if_object();
            if (!m) return err_bad_arg_type(map_type, v);
            const auto* kv = m->if_contains(key);
            if (!kv) return err_no_merge_key(v, key);
            auto f = find_map(by, key, *kv);
            if (!f) return f.error();
            (*f >= 0 ? in : out).push_back(std::move(v));
        }
        return std::nullopt;
    }

    // deduplicateScalars, with Go's order-changing swap from the end.
    static void deduplicate_scalars(json::array& s) {
        if (s.empty()) return;
        std::size_t length = s.size() - 1;
        for (std::size_t i = 0; i < length; ++i) {
            for (std::size_t j = i + 1; j <= length; ++j) {
                if (go_equal(s[i], s[j])) {
                    s[j] = s[length];
                    s.resize(length);
                    --length;
                    --j;
                }
            }
        }
    }

    // mergeSliceWithSpecialElements: $patch delete/replace/merge items.
    result<std::pair<json::array, json::array>> merge_slice_with_special_elements(json::array original,
                                                                                  const json::array& patch,
                                                                                  const std::string& key) {
        json::array plain_items;
        bool replace = false;
        for (const auto& v : patch) {
            const auto& m = v.get_object();
            const auto* d = m.if_contains(directive_marker);
            if (!d) {
                plain_items.push_back(v);
                continue;
            }
            if (d->is_string() && d->get_string() == "delete") {
                const auto* mv = m.if_contains(key);
                if (!mv) return err_no_merge_key(v, key);
                for (;;) {
                    auto f = find_map(original, key, *mv);
                    if (!f) return f.error();
                    if (*f < 0) break;
                    original.erase(original.begin() + *f);
                }
            } else if (d->is_string() && d->get_string() == "replace") {
                replace = true;  // keep going: other $patch items are pruned too
            } else if (d->is_string() && d->get_string() == "merge") {
                return plain("merging lists cannot yet be specified in the patch");
            } else {
                return err_bad_patch_type(*d, v);
            }
        }
        if (replace) return std::make_pair(std::move(plain_items), json::array{});
        return std::make_pair(std::move(original), std::move(plain_items));
    }

    result<json::array> merge_slice(json::array original, const json::array& patch, const std::string& path,
                                    const std::string& key, bool is_delete_list) {
        if (original.empty() && patch.empty()) return original;
        auto kind = slice_element_type({&original, &patch});
        if (!kind) return kind.error();
        json::array merged;
        order_keys server;  // the live list's order, for normalizeElementOrder
        json::array special_items;
        const json::array* patch_items = &patch;
        if (*kind != go_kind::map) {
            if (is_delete_list) {
                json::array kept;
                for (const auto& v : original) {
                    bool gone = std::any_of(patch.begin(), patch.end(), [&](const json::value& d) { return go_equal(d, v); });
                    if (!gone) kept.push_back(v);
                }
                return kept;
            }
            server = keys_of(original, key, *kind);
            merged = std::move(original);
            for (const auto& v : patch) merged.push_back(v);
            deduplicate_scalars(merged);
        } else {
            if (key.empty()) return plain("cannot merge lists without merge key for type struct");
            auto special = merge_slice_with_special_elements(std::move(original), patch, key);
            if (!special) return special.error();
            original = std::move(special->first);
            special_items = std::move(special->second);
            patch_items = &special_items;
            // mergeSliceWithoutSpecialElements, in place
            server = keys_of(original, key, *kind);
            merged = std::move(original);
            for (const auto& v : *patch_items) {
                const auto& m = v.get_object();
                const auto* mv = m.if_contains(key);
                if (!mv) return err_no_merge_key(v, key);
                auto f = find_map(merged, key, *mv);
                if (!f) return f.error();
                if (*f >= 0) {
                    if (auto e = merge_map(merged[static_cast<std::size_t>(*f)].get_object(), m, path)) return *e;
                } else {
                    merged.push_back(v);  // as the patch has it, directives included
                }
            }
        }
        // Enforce the order: patch items by the patch, the rest by the live list.
        json::array in, out;
        if (key.empty()) {
            partition_primitives(std::move(merged), *patch_items, in, out);
        } else if (auto e = partition_maps(std::move(merged), *patch_items, key, in, out)) {
            return *e;
        }
        return normalize_element_order(std::move(in), std::move(out), *patch_items, server, key, *kind);
    }

    // mergeSliceHandler
    // `original` is consumed (moved from).
    result<json::value> merge_slice_handler(json::value& original, const json::value& patch,
                                            const std::string& path, bool is_delete_list) {
        if (!original.is_array()) return err_bad_arg_type(slice_type, original);
        if (!patch.is_array()) return err_bad_arg_type(slice_type, patch);
        auto meta = lookup(path);
        if (!meta.merge) return patch;
        auto r = merge_slice(std::move(original.get_array()), patch.get_array(), path, meta.merge_key, is_delete_list);
        if (!r) return r.error();
        return json::value(std::move(*r));
    }

    // validatePatchWithSetOrderList
    static std::optional<error> validate_patch_with_set_order_list(const json::array& patch_list,
                                                                   const json::array& order, const std::string& key) {
        if (order.empty() || patch_list.empty()) return std::nullopt;
        json::array non_delete;
        if (!key.empty()) {
            for (const auto& v : patch_list) {
                const auto* m = v.if_object();
                if (!m) return err_bad_arg_type(map_type, v);
                const auto* d = m->if_contains(directive_marker);
                if (!(d && d->is_string() && d->get_string() == "delete")) non_delete.push_back(v);
            }
        } else {
            non_delete = patch_list;
        }
        std::size_t pi = 0, oi = 0;
        while (pi < non_delete.size() && oi < order.size()) {
            const auto* pm = non_delete[pi].if_object();
            if (pm && pm->contains(directive_marker)) {
                ++pi;
                continue;
            }
            bool equal = false;
            if (key.empty()) {
                equal = go_equal(non_delete[pi], order[oi]);
            } else {
                const auto* om = order[oi].if_object();
                if (!pm) return err_bad_arg_type(map_type, non_delete[pi]);
                if (!om) return err_bad_arg_type(map_type, order[oi]);
                const auto* a = pm->if_contains(key);
                if (!a) return err_no_merge_key(non_delete[pi], key);
                const auto* b = om->if_contains(key);
                if (!b) return err_no_merge_key(order[oi], key);
                equal = go_equal(*a, *b);
            }
            if (equal) ++pi;
            ++oi;
        }
        if (pi < non_delete.size() && oi >= order.size()) {
            return plain("The order in patch list:\n" + go_v(json::value(patch_list)) + "\n doesn't match " +
                         std::string(order_prefix_no_slash) + " list:\n" + go_v(json::value(order)) + "\n");
        }
        return std::nullopt;
    }

    // mergePatchIntoOriginal: the $setElementOrder directives and their lists.
    // The lists it merged are added to `consumed` (the Go code deletes them
    // from the patch).
    std::optional<error> merge_patch_into_original(json::object& original, const json::object& patch,
                                                   const std::string& path, std::vector<std::string>& consumed) {
        for (const auto& kv : patch) {
            std::string_view k = kv.key();
            if (!k.starts_with(order_prefix_no_slash)) continue;
            const json::value& order_v = kv.value();
            if (!order_v.is_array()) return err_bad_arg_type(slice_type, order_v);
            const auto& order = order_v.get_array();
            auto okey = extract_key(k, order_prefix_no_slash);
            if (!okey) return err_set_element_order();
            const json::value* orig_list = original.if_contains(*okey);
            const json::value* patch_list = patch.if_contains(*okey);
            if (orig_list && !orig_list->is_array()) return err_bad_arg_type(slice_type, *orig_list);
            if (patch_list && !patch_list->is_array()) return err_bad_arg_type(slice_type, *patch_list);
            const std::string child = child_path(path, *okey);
            auto meta = lookup(child);
            static const json::array empty;
            const json::array& orig_arr = orig_list ? orig_list->get_array() : empty;
            const json::array& patch_arr = patch_list ? patch_list->get_array() : empty;
            if (auto e = validate_patch_with_set_order_list(patch_arr, order, meta.merge_key)) return e;
            if (!orig_list && !patch_list) continue;
            // The element kind and the live order, from the lists before the
            // merge (Go reads them afterwards from the unchanged originals;
            // an element-type error is the same either way).
            auto kind = slice_element_type({&orig_arr, &patch_arr});
            if (!kind) {
                if (orig_list && patch_list) {
                    json::value probe = *orig_list;
                    if (auto m = merge_slice_handler(probe, *patch_list, child, false); !m) return m.error();
                }
                return kind.error();
            }
            const order_keys server = keys_of(orig_arr, meta.merge_key, *kind);
            json::value merged;
            if (orig_list && !patch_list) {
                merged = std::move(original[*okey]);
            } else if (!orig_list && patch_list) {
                merged = *patch_list;
            } else {
                json::value slot = std::move(original[*okey]);  // orig_arr is not read past here
                auto m = merge_slice_handler(slot, *patch_list, child, false);
                if (!m) return m.error();
                merged = std::move(*m);
            }
            json::array in, out;
            if (meta.merge_key.empty()) {
                partition_primitives(std::move(merged.get_array()), order, in, out);
            } else if (auto e = partition_maps(std::move(merged.get_array()), order, meta.merge_key, in, out)) {
                return e;
            }
            auto both = normalize_element_order(std::move(in), std::move(out), order, server, meta.merge_key, *kind);
            if (!both) return both.error();
            original[*okey] = std::move(*both);
            consumed.push_back(*okey);
        }
        return std::nullopt;
    }

    // removeDirectives (patch.go): false when `v` itself is a directive map.
    static bool remove_directives(json::value& v) {
        if (auto* o = v.if_object()) {
            if (o->contains(directive_marker)) return false;
            for (auto it = o->begin(); it != o->end();) {
                it = remove_directives(it->value()) ? it + 1 : o->stable_erase(it);
            }
        } else if (auto* a = v.if_array()) {
            json::array kept;
            for (auto& e : *a) {
                if (remove_directives(e)) kept.push_back(std::move(e));
            }
            *a = std::move(kept);
        }
        return true;
    }

    // mergeMap
    std::optional<error> merge_map(json::object& original, const json::object& patch, const std::string& path) {
        if (const auto* d = patch.if_contains(directive_marker)) {
            // handleDirectiveInMergeMap: the patch is used as it is.
            if (d->is_string() && d->get_string() == "replace") {
                original = patch;
                original.stable_erase(directive_marker);
                return std::nullopt;
            }
            if (d->is_string() && d->get_string() == "delete") {
                original.clear();
                return std::nullopt;
            }
            return err_bad_patch_type(*d, json::value(patch));
        }
        // applyRetainKeysDirective
        if (const auto* rk = patch.if_contains(retain_keys_directive)) {
            if (!rk->is_array()) return err_retain_keys();
            const auto& keys = rk->get_array();
            auto retained = [&](std::string_view k) {
                return std::any_of(keys.begin(), keys.end(),
                                   [&](const json::value& v) { return v.is_string() && v.get_string() == k; });
            };
            for (const auto& kv : patch) {
                std::string_view k = kv.key();
                if (k == retain_keys_directive || kv.value().is_null() || k.starts_with(delete_prefix_no_slash) ||
                    k.starts_with(order_prefix_no_slash)) {
                    continue;
                }
                if (!retained(k)) return err_retain_keys();
            }
            for (auto it = original.begin(); it != original.end();) {
                it = retained(it->key()) ? it + 1 : original.stable_erase(it);
            }
        }
        std::vector<std::string> consumed;
        if (auto e = merge_patch_into_original(original, patch, path, consumed)) return e;

        for (const auto& kv : patch) {
            std::string k(kv.key());
            if (k == retain_keys_directive || std::string_view(k).starts_with(order_prefix_no_slash) ||
                std::find(consumed.begin(), consumed.end(), k) != consumed.end()) {
                continue;  // handled above (deleted from the patch in Go)
            }
            const json::value& pv = kv.value();
            bool is_delete_list = false;
            if (std::string_view(k).starts_with(delete_prefix_no_slash)) {
                auto stripped = extract_key(k, delete_prefix_no_slash);
                if (!stripped) return err_primitive_list();
                k = std::move(*stripped);
                is_delete_list = true;
            }
            if (pv.is_null()) {
                original.stable_erase(k);
                continue;  // IgnoreUnmatchedNulls
            }
            json::value* ov = original.if_contains(k);
            if (!ov || kind_of_value(*ov) != kind_of_value(pv)) {
                // Not in the original (or another type): the patch value
                // without its directives (removeDirectives, patch.go in
                // apimachinery v0.32: a map holding `$patch` is dropped, from
                // lists too; checked against a real v1.32.13, issue 22). A
                // `$deleteFromPrimitiveList` key of an absent list does nothing.
                if (is_delete_list) continue;
                json::value v = pv;
                if (remove_directives(v)) {
                    original[k] = std::move(v);
                } else {
                    original.stable_erase(k);
                }
                continue;
            }
            const std::string child = child_path(path, k);
            if (ov->is_object()) {
                // The recursion adds nothing to `original`: `ov` stays valid.
                if (auto e = merge_map(ov->get_object(), pv.get_object(), child)) return e;
            } else if (ov->is_array()) {
                auto r = merge_slice_handler(*ov, pv, child, is_delete_list);
                if (!r) return r.error();
                *ov = std::move(*r);
            } else {
                original[k] = pv;
            }
        }
        return std::nullopt;
    }
};

} // namespace

bool supports_strategic_merge(std::string_view api_version) {
    std::string group = group_version::parse(api_version).group;
    if (group.empty() || group.find('.') == std::string::npos) return true;
    return group.ends_with(".k8s.io");
}

const list_strategies& builtin_list_strategies(std::string_view kind) {
    static const std::map<std::string, list_strategies, std::less<>> tables = [] {
        std::map<std::string, list_strategies, std::less<>> m;
        for (const char* k : {"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                              "ReplicationController", "PodTemplate", "Service", "ServiceAccount", "Namespace"}) {
            m[k] = make_table(k);
        }
        m[""] = make_table("");
        return m;
    }();
    auto it = tables.find(kind);
    return it != tables.end() ? it->second : tables.find("")->second;
}

error strategic_merge_unsupported() {
    return make_status_error(415, "UnsupportedMediaType",
                             "the body of the request was in an unknown format - accepted media types include: "
                             "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
}

result<json::value> apply_strategic_merge_patch(const json::value& original, const json::value& patch,
                                                const list_strategies& strategies) {
    // strategicPatchObject decodes the body into map[string]interface{}:
    // JSON null is an empty patch, anything else but an object is a 400.
    if (patch.is_null()) return original.is_object() ? original : json::value(json::object{});
    const auto* p = patch.if_object();
    if (!p) {
        std::string what = patch.is_array() ? "array" : patch.is_string() ? "string" : patch.is_bool() ? "bool" : "number";
        return bad_request("json: cannot unmarshal " + what + " into Go value of type map[string]interface {}");
    }
    json::object out = original.is_object() ? original.get_object() : json::object{};
    merger m{strategies};
    if (auto e = m.merge_map(out, *p, "")) return *e;
    return json::value(std::move(out));
}

std::string strategic_patch_as_go_map(std::string_view patch_text) {
    boost::system::error_code ec;
    json::value patch = json::parse(patch_text, ec);
    if (ec) return std::string(patch_text);
    return go_v(patch);
}

result<json::value> apply_strategic_merge_patch(const json::object& original, std::string_view patch_text) {
    if (!supports_strategic_merge(api_version_of(original))) return strategic_merge_unsupported();
    boost::system::error_code ec;
    json::value patch = json::parse(patch_text, ec);
    if (ec) {
        // Go's encoding/json wording for the common case; other syntax
        // errors carry Boost.JSON's text.
        if (ec == json::error::incomplete || patch_text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
            return bad_request("unexpected end of JSON input");
        }
        return bad_request(ec.message());
    }
    return apply_strategic_merge_patch(json::value(original), patch, builtin_list_strategies(kind_of(original)));
}

} // namespace kcoro
