// The scaffold's template files, embedded at build time from templates/
// (embed_templates.py): paths and contents with @@placeholders@@.
#pragma once

#include <string_view>
#include <vector>

namespace kcoro::scaffold {

struct template_file {
    std::string_view path;      // "src/api/@@kind_snake@@_types.hpp"
    std::string_view contents;
};

const std::vector<template_file>& embedded_templates();

} // namespace kcoro::scaffold
