# repr of jaxpr variables and literals (ids masked: they differ run to run)
import re
import jax

cj = jax.make_jaxpr(lambda x: x * 2 + 1)(3.0)
mask = lambda s: re.sub(r"id=\d+", "id=N", s)
print(mask(repr(cj.jaxpr.invars)), mask(repr(cj.jaxpr.outvars)))
print(repr(cj.eqns[0].invars[1]), cj.eqns[0].primitive, cj.eqns[0].params)
print(cj.in_avals, cj.out_avals)
