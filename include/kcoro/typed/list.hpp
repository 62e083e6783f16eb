// A list answer (metav1.ListMeta and items) of a typed resource: what a
// typed list verb decodes. Items usually lack apiVersion and kind; the list's
// own apiVersion and kind ("GatewayInstanceList") stay in `unknown`.
//
// Thread safety: values.
#pragma once

#include <kcoro/typed/declare.hpp>

#include <vector>

namespace kcoro::typed {

struct list_meta {
    std::string resource_version;
    std::string continue_;
    std::optional<std::int64_t> remaining_item_count;
    unknown_fields unknown;
    friend bool operator==(const list_meta&, const list_meta&) = default;
};
BOOST_DESCRIBE_STRUCT(list_meta, (), (resource_version, continue_, remaining_item_count))

template <class T> struct list {
    list_meta metadata;
    std::vector<T> items;
    unknown_fields unknown;
    BOOST_DESCRIBE_CLASS(list, (), (metadata, items), (), ())
};

} // namespace kcoro::typed
