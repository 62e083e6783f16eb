// Typed verbs: the client's verbs for a resource type declared with
// KCORO_RESOURCE (kcoro/typed/), its group/version/resource taken from
// resource_traits<T> so the path and the type can never disagree.
//
//   using kcoro::k8s::config_map;
//   auto cm = co_await kcoro::client::get<config_map>(c, {"default", "x"});   // result<config_map>
//   if (!cm && kcoro::is_not_found(cm.error())) { ... }
//   cm->data["k"] = "v";
//   auto written = co_await kcoro::client::update<config_map>(c, std::move(*cm));
//
// (test/unit/api/typed_client_test.cpp runs them against kcoro-apiserver.)
//
// Every verb sends what the JSON verb sends (typed::to_object of the
// argument) and decodes the answer into a fresh T (tolerantly: members the
// type does not declare are kept in `unknown`, so a read-modify-write loses
// nothing another writer set). An answer that does not decode is an error,
// never a crash: kcoro_errc::decode_error naming the kind, the object and
// every field path ("GatewayInstance ns/g: spec.replicas: expected an
// integer, got \"two\""). API errors are passed through unchanged.
//
//   get<T>(c, key[, get_options])                       GET
//   list<T>(c, ns[, list_options])                      one page: typed::list<T>
//   list_all<T>(c, ns[, list_options])                  every page
//   create<T>(c, obj[, create_options])                 POST to obj.metadata.namespace_
//   update<T>(c, obj[, update_options])                 PUT (resourceVersion is the precondition)
//   apply<T>(c, obj, field_manager[, force])            server-side apply of obj
//   patch<T>(c, key, body[, patch_options])             any patch; the answer typed
//   merge_patch<T>(c, key, changes[, patch_options])    a JSON merge patch of what `changes` encodes
//   update_status<T>(c, obj[, update_options])          PUT of the status subresource
//   patch_status<T>(c, key, body[, patch_options])      patch of the status subresource
//
// A typed apply sends the whole encoded object (without managedFields):
// every member that encodes (numbers, booleans and enums always do, unless
// omit_empty()) is claimed by the field manager, as Go's typed structs would
// be. Apply a struct built for the purpose (only the fields you own set), or
// use the JSON apply with an applied configuration.
//
// Arguments: by value into the coroutine frame, no default arguments
// (overloads), like the client's verbs (docs/toolchain.md). Thread safety:
// the client's rules.
#pragma once

#include <kcoro/client/client.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/list.hpp>
#include <kcoro/typed/object_meta.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <string>
#include <utility>

namespace kcoro::client {

namespace typed_detail {

/// "GatewayInstance ns/name" for an error message.
template <class T> std::string what(const boost::json::object& obj) {
    return std::string(typed::resource_traits<T>::kind) + " " + key_of(obj).str();
}

/// Decodes an object the API answered; a decode_error naming every field path otherwise.
template <class T> result<T> decode_answer(const result<object_ptr>& answer) {
    if (!answer) {
        return answer.error();
    }
    if (!*answer) {
        return error(kcoro_errc::decode_error, std::string(typed::resource_traits<T>::kind) + ": empty answer");
    }
    T out;
    auto errors = typed::decode(**answer, out);
    if (!errors.empty()) {
        return typed::to_error(errors, what<T>(**answer));
    }
    return out;
}

template <class T> result<typed::list<T>> decode_list(const result<list_result>& answer) {
    if (!answer) {
        return answer.error();
    }
    typed::list<T> out;
    out.metadata.resource_version = answer->resource_version;
    out.metadata.continue_ = answer->continue_token;
    out.metadata.remaining_item_count = answer->remaining_item_count;
    out.items.resize(answer->items.size());
    typed::field_errors all;
    for (std::size_t i = 0; i < answer->items.size(); ++i) {
        if (!answer->items[i]) {
            continue;
        }
        auto errors = typed::decode(*answer->items[i], out.items[i]);
        for (auto& e : errors) {
            // Paths as the list's: items[3].spec.replicas.
            e.path = "items[" + std::to_string(i) + "]" + (e.path.empty() ? "" : "." + e.path);
            all.push_back(std::move(e));
        }
    }
    if (!all.empty()) {
        return typed::to_error(all, std::string(typed::resource_traits<T>::list_kind()));
    }
    return out;
}

} // namespace typed_detail

template <typed::resource_type T>
boost::asio::awaitable<result<T>> get(client& c, object_key key, get_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.get(std::move(gvr), std::move(key), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T> boost::asio::awaitable<result<T>> get(client& c, object_key key) {
    return get<T>(c, std::move(key), get_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<typed::list<T>>> list(client& c, std::string ns, list_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.list(std::move(gvr), std::move(ns), std::move(opts));
    co_return typed_detail::decode_list<T>(got);
}
template <typed::resource_type T> boost::asio::awaitable<result<typed::list<T>>> list(client& c, std::string ns) {
    return list<T>(c, std::move(ns), list_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<typed::list<T>>> list_all(client& c, std::string ns, list_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.list_all(std::move(gvr), std::move(ns), std::move(opts));
    co_return typed_detail::decode_list<T>(got);
}
template <typed::resource_type T>
boost::asio::awaitable<result<typed::list<T>>> list_all(client& c, std::string ns) {
    return list_all<T>(c, std::move(ns), list_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> create(client& c, T obj, create_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    std::string ns = obj.metadata.namespace_;
    auto body = typed::to_object(obj);
    auto got = co_await c.create(std::move(gvr), std::move(ns), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T> boost::asio::awaitable<result<T>> create(client& c, T obj) {
    return create<T>(c, std::move(obj), create_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> update(client& c, T obj, update_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto body = typed::to_object(obj);
    auto got = co_await c.update(std::move(gvr), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T> boost::asio::awaitable<result<T>> update(client& c, T obj) {
    return update<T>(c, std::move(obj), update_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> apply(client& c, T obj, std::string field_manager, bool force) {
    auto gvr = typed::resource_traits<T>::gvr();
    obj.metadata.managed_fields.clear();  // an apply must not carry managedFields (the server refuses them)
    auto body = typed::to_object(obj);
    auto got = co_await c.apply(std::move(gvr), std::move(body), std::move(field_manager), force);
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T>
boost::asio::awaitable<result<T>> apply(client& c, T obj, std::string field_manager) {
    return apply<T>(c, std::move(obj), std::move(field_manager), false);
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> patch(client& c, object_key key, std::string body, patch_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.patch(std::move(gvr), std::move(key), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
/// A JSON merge patch.
template <typed::resource_type T>
boost::asio::awaitable<result<T>> patch(client& c, object_key key, std::string body) {
    return patch<T>(c, std::move(key), std::move(body), patch_options());
}

/// A JSON merge patch made of a typed object: what `changes` encodes (its
/// non-empty members, apiVersion and kind) replaces the live object's; maps
/// merge key by key, lists are replaced whole, members it leaves empty are
/// left alone. Set metadata.resource_version in `changes` for a precondition
/// (409 when the object changed since). opts.type is set to merge.
template <typed::resource_type T>
boost::asio::awaitable<result<T>> merge_patch(client& c, object_key key, T changes, patch_options opts) {
    opts.type = patch_type::merge;
    auto body = boost::json::serialize(typed::to_object(changes));
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.patch(std::move(gvr), std::move(key), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T>
boost::asio::awaitable<result<T>> merge_patch(client& c, object_key key, T changes) {
    return merge_patch<T>(c, std::move(key), std::move(changes), patch_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> update_status(client& c, T obj, update_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto body = typed::to_object(obj);
    auto got = co_await c.update_status(std::move(gvr), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
template <typed::resource_type T> boost::asio::awaitable<result<T>> update_status(client& c, T obj) {
    return update_status<T>(c, std::move(obj), update_options());
}

template <typed::resource_type T>
boost::asio::awaitable<result<T>> patch_status(client& c, object_key key, std::string body, patch_options opts) {
    auto gvr = typed::resource_traits<T>::gvr();
    auto got = co_await c.patch_status(std::move(gvr), std::move(key), std::move(body), std::move(opts));
    co_return typed_detail::decode_answer<T>(got);
}
/// A JSON merge patch of the status.
template <typed::resource_type T>
boost::asio::awaitable<result<T>> patch_status(client& c, object_key key, std::string body) {
    return patch_status<T>(c, std::move(key), std::move(body), patch_options());
}

} // namespace kcoro::client
