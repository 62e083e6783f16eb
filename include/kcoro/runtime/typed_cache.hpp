// Typed reads of the shared informer cache:
//
//   #include <kcoro/runtime/typed_cache.hpp>
//   auto gi = mgr.cache().get<gateway::v1alpha1::gateway_instance>({"ns", "g"});
//   if (!gi) log(gi.error().message());        // "GatewayInstance ns/g: spec.port: ..."
//   else if (*gi) use((*gi)->spec.port);       // shared, immutable, decoded once per version
//
// The informer is the one get(resource_traits<T>::gvr(), key) reads; the
// memo (typed_memo.hpp) is kept per informer and type, bounded by
// informer_factory_options::typed_memo_capacity. No informer for the
// resource: null, as get(gvr, key) (nothing is created or started).
//
// Thread safety: the factory's (one io_context).
#pragma once

#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/typed_memo.hpp>

#include <memory>
#include <typeindex>

namespace kcoro::runtime {

template <class T> result<std::shared_ptr<const T>> informer_factory::get(const object_key& key) {
    static_assert(typed::resource_type<T>, "informer_factory::get<T>: T must be declared with KCORO_RESOURCE");
    auto* inf = reader_for(typed::resource_traits<T>::gvr(), key.ns);
    if (!inf) {
        return std::shared_ptr<const T>();
    }
    auto& slot = memo_slot(*inf, std::type_index(typeid(T)));
    if (!slot) {
        slot = std::make_shared<typed_memo<T>>(opts_.typed_memo_capacity);
    }
    return static_cast<typed_memo<T>*>(slot.get())->get(inf->cache(), key);
}

} // namespace kcoro::runtime
