// SPDX-License-Identifier: MIT
// Circular shaft d = 100 mm, L = 2 m along x (seed-001 digest §8.2 B2); mesh size h.
SetFactory("OpenCASCADE");
If (!Exists(h)) h = 0.02; EndIf
Cylinder(1) = {0, 0, 0, 2.0, 0, 0, 0.05};
Mesh.CharacteristicLengthMax = h;
Physical Volume("SHAFT") = {1};
