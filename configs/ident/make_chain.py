#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes seed 003's cart-pendulum chain (digest §3.6, V17) as a flexuq simulate job.

python3 make_chain.py > cart-pendulum-chain.yaml            # Table 10's start values
python3 make_chain.py --train > cart-pendulum-train.yaml    # the ROM's training run (snapshots: true)
python3 make_chain.py --seed > cart-pendulum-chain-seed.yaml  # the seed's protocol: 15 s, the force released after 10 s
(--seed --train: the training run of that protocol)

The training run's parameters are neither the start nor the target values; the left cart's pendula
are unlike each other, so every planar direction of the chain moves."""
import sys

train = "--train" in sys.argv
seed = "--seed" in sys.argv  # seed 003 §6.1.2: 15 s, the 25 N sine released after 10 s (forces[i].window)
m_c1, m_p, d_p = (2.0, [0.10, 0.13, 0.16, 0.19], [0.15, 0.2, 0.25, 0.3]) if train else (2.3, [0.12] * 4, [0.2] * 4)
out = []
w = out.append
w("""# Seed 003 §6.1.2 (digest §3.6, V17), written by configs/ident/make_chain.py%s: two carts on rails along x,
# four pendula hinged about z on each, the carts coupled by a spring k1 = 1000 N/m and the right one tied to
# the ground by k2 = 1000 N/m, a rotational damper in every hinge, gravity -y, a 3 Hz 25 N sine on the left
# cart, at rest in its static equilibrium at t = 0. Table 10's data (m_C2 4.6, m_P5..8 0.12, d_P5..8 0.2,
# J_C 0.02, J_P 0.00079 about the centre of mass at half the 0.22 m length) in SI units; the hinge
# spacing (0.15 m) and the carts' 1 m distance are not in the thesis. The same model as
# tests/ident/CartPendulumChain.hpp. n = 70 coordinates, m = 60 active rows, 10 degrees of freedom.""" %
  (" --train (the ROM's training run)" if train else " (Table 10's start values)"))
w("command: simulate")
w("bodies:")
w("  cart1: {type: rigid, mass: %g, inertia: [0.02, 0.02, 0.02], position: [0, 0, 0]}" % m_c1)
w("  cart2: {type: rigid, mass: 4.6, inertia: [0.02, 0.02, 0.02], position: [1, 0, 0]}")
for k in range(8):
    c, i = divmod(k, 4)
    x = c + 0.15 * (i - 1.5)
    m = m_p[i] if c == 0 else 0.12
    w("  pendulum%d: {type: rigid, mass: %g, inertia: [0.00079, 1.0e-5, 0.00079], position: [%g, -0.11, 0]}" % (k + 1, m, x))
w("joints:")
for c in range(2):
    w("  - {name: cart%d.rail, type: prismatic, bodies: [ground, cart%d], point: [%d, 0, 0], axis: [1, 0, 0]}" % (c + 1, c + 1, c))
for k in range(8):
    c, i = divmod(k, 4)
    w("  - {name: pendulum%d.hinge, type: revolute, bodies: [cart%d, pendulum%d], point: [%g, 0, 0], axis: [0, 0, 1]}"
      % (k + 1, c + 1, k + 1, c + 0.15 * (i - 1.5)))
w("forces:")
for k in range(8):
    c, i = divmod(k, 4)
    d = d_p[i] if c == 0 else 0.2
    w("  - {type: rotational-damper, body: pendulum%d, body2: cart%d, axis: [0, 0, 1], damping: %g}" % (k + 1, c + 1, d))
w("  - {type: spring, bodies: [cart1, cart2], point: [0, 0, 0], point2: [1, 0, 0], stiffness: 1000}")
w("  - {type: spring, bodies: [cart2, ground], point: [1, 0, 0], point2: [2, 0, 0], stiffness: 1000}")
w("  - {type: force, body: cart1, axis: [1, 0, 0], harmonic: {amplitude: 25, frequency: 3}%s}" % (", window: [0, 10]" if seed else ""))
w("  - {type: gravity, g: [0, -9.81, 0]}")
w("# The identification runs this solver's fixed steps in the index-3 formulation (its adjoint is that scheme's).")
w("solver: {type: hht, alpha: -0.05, step: 0.01, end: %s, formulation: index-3}" % ("15.0" if seed else "1.0"))
w("animation: false")
if train:
    w("snapshots: true")
w("outputs:")
w("  - {name: x_C1, body: cart1, quantity: position}")
w("output: cart-pendulum-%s%s.h5" % ("train" if train else "chain", "-seed" if seed else ""))
print("\n".join(out))
