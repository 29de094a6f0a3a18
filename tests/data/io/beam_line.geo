// SPDX-License-Identifier: MIT
// A straight line in four 2-node segments: a beam mesh for the reader tests (gmsh -1).
Point(1) = {0, 0, 0};
Point(2) = {2, 1, 0};
Line(1) = {1, 2};
Transfinite Curve{1} = 5;
Physical Curve("beam") = {1};
Physical Point("tip") = {2};
