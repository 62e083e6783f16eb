// object_store: list (selectors, limit/continue, resourceVersion rules),
// reading older revisions from the history, and the watch event feed.
#include "store/continue_token.hpp"
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

error list_options_invalid(std::vector<status_cause> causes) {
    return errors::invalid("meta.k8s.io", "ListOptions", "", std::move(causes));
}

const std::string_view continue_expired_message =
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - "
    "objects that were created, modified, or deleted between the time the first chunk was returned and "
    "now may show up in the list.";

error too_old(revision_t requested, revision_t compacted) {
    return errors::expired("too old resource version: " + std::to_string(requested) + " (" +
                           std::to_string(compacted) + ")");
}

bool selected(const watch_filter& f, const resource_def& def, const json::object& obj) {
    if (def.namespaced && !f.ns.empty() && namespace_of(obj) != f.ns) return false;
    return f.labels.matches_object(obj) && f.fields.matches(obj) && f.matches_shard(obj);
}

} // namespace

result<json::object> object_store::list(const group_version_resource& gvr, std::string_view ns_in,
                                        const list_options& o) const {
    const auto& im = *impl_;
    const auto* def = im.def_or_null(gvr);
    if (!def) return errors::not_found(gvr, "");
    std::string ns = def->namespaced ? std::string(ns_in) : std::string{};
    auto filter = watch_filter::make(gvr, ns, o.label_selector, o.field_selector);
    if (!filter) return filter.error();
    // KEP-5866: with the gate off the parameter is not read at all (as an
    // unknown query parameter), so even a malformed one lists everything.
    if (im.config.sharded_list_and_watch) {
        if (auto s = filter->set_shard_selector(o.shard_selector); !s) return s.error();
    }

    // ListOptions validation (apimachinery internalversion/validation
    // ValidateListOptions, v0.32): every error, in its order.
    const auto& match = o.resource_version_match;
    std::vector<status_cause> invalid;
    if (!match.empty()) {
        if (o.resource_version.empty()) {
            invalid.push_back(errors::field_forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
        }
        if (!o.continue_token.empty()) {
            invalid.push_back(errors::field_forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
        }
        if (match != "Exact" && match != "NotOlderThan") {
            invalid.push_back(errors::field_not_supported("resourceVersionMatch", "\"" + match + "\"",
                                                          {"Exact", "NotOlderThan", ""}));
        }
        if (match == "Exact" && o.resource_version == "0") {
            invalid.push_back(errors::field_forbidden(
                "resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
        }
    }
    if (o.send_initial_events) {
        invalid.push_back(errors::field_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    }
    if (!invalid.empty()) return list_options_invalid(std::move(invalid));
    // No check of a negative limit: 1.32's ValidateListOptions has none and
    // lists everything (internalversion/validation/validation.go).

    // staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (1.32),
    // shouldDelegateList: "Serve paginated requests about revision "0" from
    // watch cache" -- and the cache's GetList returns every selected item,
    // with no continue and no remainingItemCount. Every other list with a
    // limit goes to etcd and is paged; without a limit the two agree.
    const bool from_watch_cache = im.config.watch_cache && o.resource_version == "0" && o.continue_token.empty();
    const std::int64_t limit = from_watch_cache ? 0 : o.limit;

    revision_t snapshot = revision_;
    std::optional<object_key> start_after;
    std::optional<std::int64_t> token_remaining;  // items from this page on, as the last page counted
    if (!o.continue_token.empty()) {
        // storage.ValidateListOptions: the token is decoded before the
        // resourceVersion is looked at.
        auto token = decode_continue_token(o.continue_token);
        if (!token) return errors::bad_request("invalid continue token: " + token.error().message());
        if (!o.resource_version.empty() && o.resource_version != "0") {
            return errors::bad_request("specifying resource version is not allowed when using continue");
        }
        // A continue token's revision is read from etcd itself: a future one
        // is etcd's error, passed through as a 500 (checked against v1.32.13).
        if (token->revision > revision_) return errors::future_revision();
        if (token->revision < im.compacted) return errors::expired(continue_expired_message);
        snapshot = token->revision;
        token_remaining = token->remaining;
        start_after = object_key::parse(token->last_key);
        if (!def->namespaced) start_after->ns.clear();
    } else if (!o.resource_version.empty() && o.resource_version != "0") {
        auto rv = errors::parse_resource_version_param(o.resource_version);
        if (!rv) return rv.error();
        // Exact is delegated to etcd (cacher.go shouldDelegateList), which
        // refuses a future revision; NotOlderThan waits in the cache, then 504.
        if (match == "Exact" && *rv > revision_) return errors::future_revision();
        if (*rv > revision_) return errors::too_large_resource_version(*rv, revision_);
        if (match == "Exact") {
            if (*rv < im.compacted) return too_old(*rv, im.compacted);
            snapshot = *rv;
        }
    }

    // The bucket at `snapshot`: current objects, with the changes made after
    // the snapshot undone from the history.
    static const bucket_map empty;
    const auto* current = im.find_bucket(*def);
    if (!current) current = &empty;
    std::map<object_key, object_ptr> overlay;
    if (snapshot < revision_) {
        auto bucket_name = impl::bucket_of(*def);
        for (auto it = im.history.rbegin(); it != im.history.rend() && it->revision > snapshot; ++it) {
            if (it->bucket == bucket_name) overlay[it->key] = it->previous;
        }
    }

    // One pass over the keys from where the page starts (a continue token's
    // last key, else the namespace's first key) to the namespace's end: each
    // page costs its own items plus, for remainingItemCount, a count of the
    // keys after it, never a walk over the pages before it.
    json::array items;
    std::string last_key;
    bool more = false;
    std::int64_t remaining = 0;
    // A shard selector is a selector too: no remainingItemCount (the etcd3
    // store counts only for an empty predicate).
    const bool count_remaining = filter->labels.empty() && filter->fields.empty() && !filter->shards;
    const bool by_ns = def->namespaced && !ns.empty();
    auto first_of = [&](const auto& m) {
        if (start_after) return m.upper_bound(*start_after);
        return by_ns ? m.lower_bound(object_key{ns, ""}) : m.begin();
    };
    // The first key of the next namespace: the smallest namespace > ns is ns + '\0'.
    auto end_of = [&](const auto& m) { return by_ns ? m.lower_bound(object_key{ns + '\0', ""}) : m.end(); };
    auto a = first_of(*current);
    const auto a_end = end_of(*current);
    auto b = first_of(overlay);
    const auto b_end = end_of(overlay);
    // A token whose last key lies outside the namespace (a token of another
    // list): before it, the whole namespace; after it, nothing.
    if (start_after && by_ns && start_after->ns < ns) {
        a = current->lower_bound(object_key{ns, ""});
        b = overlay.lower_bound(object_key{ns, ""});
    } else if (start_after && by_ns && start_after->ns > ns) {
        a = a_end;
        b = b_end;
    }
    // Merge the two sorted ranges, the overlay winning.
    while (a != a_end || b != b_end) {
        const object_key* key;
        const object_ptr* obj;
        if (a != a_end && (b == b_end || a->first < b->first)) {
            key = &a->first;
            obj = &a->second;
            ++a;
        } else {
            if (a != a_end && a->first == b->first) ++a;
            key = &b->first;
            obj = &b->second;
            ++b;
        }
        if (!*obj || !selected(*filter, *def, **obj)) continue;
        if (limit > 0 && static_cast<std::int64_t>(items.size()) >= limit) {
            more = true;
            if (count_remaining && token_remaining && *token_remaining >= static_cast<std::int64_t>(items.size())) {
                // The previous page counted what was left at this snapshot.
                remaining = *token_remaining - static_cast<std::int64_t>(items.size());
            } else if (count_remaining) {
                // Without selectors every visible key counts: the keys left in
                // the current bucket, corrected by the overlay (created after
                // the snapshot: invisible; deleted after it: still visible).
                remaining = 1 + std::distance(a, a_end);
                for (; b != b_end; ++b) {
                    const bool now = current->contains(b->first);
                    const bool then = b->second != nullptr;
                    if (now && !then) --remaining;
                    if (!now && then) ++remaining;
                }
            }
            break;
        }
        items.push_back(*impl::present(*obj, *def));
        last_key = key->str();
    }

    json::object meta{{"resourceVersion", resource_version_string(snapshot)}};
    if (more) {
        std::optional<std::int64_t> rem;
        if (count_remaining) rem = remaining;
        // The token holds no selector, as the real one: each page applies the
        // selectors the request carries (informers send the same ones).
        meta["continue"] = encode_continue_token({snapshot, last_key, rem});
        if (count_remaining) meta["remainingItemCount"] = remaining;
    }
    // ListMeta.shardInfo (apimachinery meta/v1 types.go, ShardInfo{Selector}):
    // the selector applied, in its canonical Selector.String() form; absent
    // when no shardSelector was applied. On every page, as the e2e test
    // (test/e2e/apimachinery/sharding.go) checks.
    if (filter->shards) meta["shardInfo"] = json::object{{"selector", filter->shards->str()}};
    return json::object{{"kind", def->list_kind},
                        {"apiVersion", def->api_version()},
                        {"metadata", std::move(meta)},
                        {"items", std::move(items)}};
}

result<std::vector<watch_event>> object_store::events_since(revision_t after, const watch_filter& filter,
                                                            std::size_t max_events) const {
    const auto& im = *impl_;
    const auto* def = im.def_or_null(filter.gvr);
    if (!def) return errors::not_found(filter.gvr, "");
    if (after < im.compacted) return too_old(after, im.compacted);
    std::vector<watch_event> out;
    auto bucket_name = impl::bucket_of(*def);
    auto first = std::partition_point(im.history.begin(), im.history.end(),
                                      [&](const history_record& r) { return r.revision <= after; });
    bool by_ns = def->namespaced && !filter.ns.empty();
    // The shard selector hashes the uid or the namespace, which never change:
    // an object matches it in every state or in none, so it never turns an
    // update into ADDED/DELETED (the cacher's filter sees both states alike).
    auto passes = [&](const object_ptr& obj, const json::object* labels) {
        return filter.labels.matches(labels) && (filter.fields.empty() || filter.fields.matches(*obj)) &&
               filter.matches_shard(*obj);
    };
    for (auto it = first; it != im.history.end(); ++it) {
        if (it->bucket != bucket_name) continue;
        if (by_ns && it->key.ns != filter.ns) continue;  // same key before and after
        // cacheWatcher.convertToWatchEvent: compare the filter on both states.
        bool now_matches = it->type != event_type::deleted && passes(it->object, it->labels);
        bool was_matching = it->previous && passes(it->previous, it->previous_labels);
        if (it->type == event_type::deleted) {
            if (!was_matching) continue;
            out.push_back({event_type::deleted, it->revision, impl::present(it->object, *def)});
        } else if (now_matches && was_matching) {
            out.push_back({event_type::modified, it->revision, impl::present(it->object, *def)});
        } else if (now_matches) {
            out.push_back({event_type::added, it->revision, impl::present(it->object, *def)});
        } else if (was_matching) {
            // Stopped matching: the previous content at this event's revision.
            auto gone = std::make_shared<json::object>(*it->previous);
            mutable_metadata(*gone)["resourceVersion"] = resource_version_string(it->revision);
            out.push_back({event_type::deleted, it->revision, impl::present(gone, *def)});
        } else {
            continue;
        }
        if (max_events && out.size() >= max_events) break;
    }
    return out;
}

std::vector<watch_event> object_store::initial_events(const watch_filter& filter) const {
    std::vector<watch_event> out;
    const auto* def = impl_->def_or_null(filter.gvr);
    if (!def) return out;
    const auto* b = impl_->find_bucket(*def);
    if (!b) return out;
    auto it = b->begin();
    if (def->namespaced && !filter.ns.empty()) it = b->lower_bound(object_key{filter.ns, ""});
    for (; it != b->end(); ++it) {
        if (def->namespaced && !filter.ns.empty() && it->first.ns != filter.ns) break;
        if (!selected(filter, *def, *it->second)) continue;
        auto obj = impl::present(it->second, *def);
        out.push_back({event_type::added, parse_revision(resource_version_of(*obj)).value_or(0), obj});
    }
    return out;
}

} // namespace kcoro::apiserver
