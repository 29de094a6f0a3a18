// SPDX-License-Identifier: MIT
#pragma once
// The CMS bases the generalised superelement tests split (seed 002 §3.6): every method with a
// physical or split interface, Herting with free- and fixed-interface modes.
#include "flexuq/cms/Reduction.hpp"

#include <optional>
#include <vector>

namespace flexuq::test {

struct NamedBasis {
  const char* name;
  cms::Method method;
  std::optional<cms::ModeInterface> mi;
};

inline const std::vector<NamedBasis>& gs_bases() {
  static const std::vector<NamedBasis> b = {{"guyan", cms::Method::guyan, std::nullopt},
                                            {"craig-bampton", cms::Method::craig_bampton, std::nullopt},
                                            {"hurty", cms::Method::hurty, std::nullopt},
                                            {"herting", cms::Method::herting, cms::ModeInterface::free},
                                            {"herting-fixed", cms::Method::herting, cms::ModeInterface::fixed},
                                            {"hintz-constraint", cms::Method::hintz_constraint, cms::ModeInterface::free},
                                            {"craig-chang", cms::Method::craig_chang, std::nullopt},
                                            {"hintz-attachment", cms::Method::hintz_attachment, std::nullopt},
                                            {"rubin-martinez", cms::Method::rubin_martinez, std::nullopt}};
  return b;
}

} // namespace flexuq::test
