"""Structured control flow: ``cond``/``switch``, ``while_loop``/``fori_loop`` and
``scan``/``map``, each a primitive that carries the jaxprs of the user's functions."""
from glassjax.lax.control_flow.conditionals import (cond, cond_p, platform_dependent,
                                                    platform_index_p, switch)
from glassjax.lax.control_flow.while_loops import while_loop, while_p
from glassjax.lax.control_flow.scans import map, scan, scan_p
from glassjax.lax.control_flow.fori_loops import fori_loop
from glassjax.lax.control_flow.solves import custom_linear_solve, custom_root, linear_solve_p
