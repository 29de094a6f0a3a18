// SPDX-License-Identifier: MIT
// Removed once the first workflow lands here (a static library needs one source).
namespace flexuq::workflow {
}
