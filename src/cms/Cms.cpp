// SPDX-License-Identifier: MIT
// Placeholder translation unit so the cms library exists before its sources land.
namespace flexuq::cms {}
