// Objects are Boost.JSON objects. These are the small typed accessors for
// metadata that every layer needs, and helpers to build owner references.
//
// Readers never throw: a missing or mistyped field reads as empty/0/false.
// Cached objects are shared and immutable (`object_ptr`); copy to modify.
#pragma once

#include <kcoro/core/resource.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

/// A shared, immutable object: what caches hand out.
using object_ptr = std::shared_ptr<const boost::json::object>;

struct owner_reference {
    std::string api_version;
    std::string kind;
    std::string name;
    std::string uid;
    bool controller = false;
    bool block_owner_deletion = false;
    friend bool operator==(const owner_reference&, const owner_reference&) = default;
};

// --- readers --------------------------------------------------------------
const boost::json::object* metadata_of(const boost::json::object& obj) noexcept;
std::string_view api_version_of(const boost::json::object& obj) noexcept;
std::string_view kind_of(const boost::json::object& obj) noexcept;
std::string_view name_of(const boost::json::object& obj) noexcept;
std::string_view generate_name_of(const boost::json::object& obj) noexcept;
std::string_view namespace_of(const boost::json::object& obj) noexcept;
std::string_view uid_of(const boost::json::object& obj) noexcept;
std::string_view resource_version_of(const boost::json::object& obj) noexcept;
std::int64_t generation_of(const boost::json::object& obj) noexcept;
std::string_view creation_timestamp_of(const boost::json::object& obj) noexcept;
/// metadata.deletionTimestamp, empty when not being deleted.
std::string_view deletion_timestamp_of(const boost::json::object& obj) noexcept;
bool is_being_deleted(const boost::json::object& obj) noexcept;
object_key key_of(const boost::json::object& obj);

const boost::json::object* labels_of(const boost::json::object& obj) noexcept;
const boost::json::object* annotations_of(const boost::json::object& obj) noexcept;
std::optional<std::string_view> label_of(const boost::json::object& obj, std::string_view key) noexcept;
std::optional<std::string_view> annotation_of(const boost::json::object& obj, std::string_view key) noexcept;

std::vector<std::string> finalizers_of(const boost::json::object& obj);
bool has_finalizer(const boost::json::object& obj, std::string_view finalizer) noexcept;

std::vector<owner_reference> owner_references_of(const boost::json::object& obj);
/// The owner reference with controller=true, if any.
std::optional<owner_reference> controller_of(const boost::json::object& obj);
/// True when `obj` has a controller owner reference with this uid.
bool is_controlled_by(const boost::json::object& obj, std::string_view owner_uid);

const boost::json::value* managed_fields_of(const boost::json::object& obj) noexcept;

/// Read a nested field by path ("spec", "replicas"); nullptr if absent.
const boost::json::value* find_path(const boost::json::object& obj,
                                    std::initializer_list<std::string_view> path) noexcept;

// --- writers --------------------------------------------------------------
/// metadata, created when missing.
boost::json::object& mutable_metadata(boost::json::object& obj);
void set_name(boost::json::object& obj, std::string_view name);
void set_namespace(boost::json::object& obj, std::string_view ns);
void set_label(boost::json::object& obj, std::string_view key, std::string_view value);
void set_annotation(boost::json::object& obj, std::string_view key, std::string_view value);
/// Adds the finalizer if missing; returns true when it changed the object.
bool add_finalizer(boost::json::object& obj, std::string_view finalizer);
/// Removes the finalizer if present; returns true when it changed the object.
bool remove_finalizer(boost::json::object& obj, std::string_view finalizer);
void strip_managed_fields(boost::json::object& obj);

boost::json::object to_json(const owner_reference& ref);
owner_reference owner_reference_from(const boost::json::value& v);
/// A controller owner reference to `owner` (controller and blockOwnerDeletion true).
owner_reference make_controller_reference(const boost::json::object& owner);

} // namespace kcoro
