// SPDX-License-Identifier: MIT
// Carrier of the precompiled third-party headers that every flexuq library reuses
// and the one every test program reuses (cmake/flexuq_helpers.cmake, tests/CMakeLists.txt;
// FLEXUQ_PCH). Nothing else.
namespace flexuq::detail {
int pch_carrier() { return 0; }
} // namespace flexuq::detail
