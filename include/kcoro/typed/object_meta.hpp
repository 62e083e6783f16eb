// metav1.ObjectMeta and metav1.OwnerReference, typed once for every kind.
// managedFields is kept raw (server-side apply's bookkeeping: read by
// tools, never edited by a controller); anything else the server adds lands
// in `unknown` and survives a round trip.
//
// Thread safety: values.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <string_view>

namespace kcoro::typed {

struct owner_reference {
    std::string api_version;
    std::string kind;
    std::string name;
    std::string uid;
    std::optional<bool> controller;
    std::optional<bool> block_owner_deletion;
    unknown_fields unknown;
    friend bool operator==(const owner_reference&, const owner_reference&) = default;
};
BOOST_DESCRIBE_STRUCT(owner_reference, (), (api_version, kind, name, uid, controller, block_owner_deletion))
KCORO_FIELDS(owner_reference, field("api_version").required(), field("kind").required(),
             field("name").required(), field("uid").required())

struct object_meta {
    std::string name;
    std::string generate_name;
    std::string namespace_;
    std::string uid;
    std::string resource_version;
    std::int64_t generation = 0;
    timestamp creation_timestamp;
    timestamp deletion_timestamp;
    std::optional<std::int64_t> deletion_grace_period_seconds;
    std::map<std::string, std::string> labels;
    std::map<std::string, std::string> annotations;
    std::vector<owner_reference> owner_references;
    std::vector<std::string> finalizers;
    boost::json::array managed_fields;
    unknown_fields unknown;

    /// namespace/name.
    object_key key() const { return {namespace_, name}; }
    bool is_being_deleted() const noexcept { return !deletion_timestamp.empty(); }
    bool has_finalizer(std::string_view f) const noexcept;
    /// Adds the finalizer when missing; true when it changed the list.
    bool add_finalizer(std::string_view f);
    /// Removes the finalizer when present; true when it changed the list.
    bool remove_finalizer(std::string_view f);
    /// The owner reference with controller=true, or nullptr.
    const owner_reference* controller() const noexcept;
    /// A controller owner reference with this uid.
    bool is_controlled_by(std::string_view owner_uid) const noexcept;

    friend bool operator==(const object_meta&, const object_meta&) = default;
};
BOOST_DESCRIBE_STRUCT(object_meta, (),
                      (name, generate_name, namespace_, uid, resource_version, generation, creation_timestamp,
                       deletion_timestamp, deletion_grace_period_seconds, labels, annotations,
                       owner_references, finalizers, managed_fields))
KCORO_FIELDS(object_meta, field("generation").omit_empty())

/// A controller owner reference to `owner` (controller and blockOwnerDeletion
/// true), as controllerutil.SetControllerReference writes it.
template <resource_type T> owner_reference controller_reference(const T& owner) {
    owner_reference r;
    r.api_version = std::string(resource_traits<T>::api_version);
    r.kind = std::string(resource_traits<T>::kind);
    r.name = owner.metadata.name;
    r.uid = owner.metadata.uid;
    r.controller = true;
    r.block_owner_deletion = true;
    return r;
}

} // namespace kcoro::typed
