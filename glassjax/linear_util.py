"""Functions with transformations stacked on them, as JAX's ``linear_util`` has them.

glassjax's own transformations are plain Python closures (``api_util.flatten_call``).
Libraries written against JAX's internals (flax's ``lazy_init``, ``nn.scan``) build a
``WrappedFun`` instead: a function ``f`` plus *transformations*, each a function
``gen(inner, *static, *args)`` that calls ``inner`` (the function below it) with
rewritten arguments and rewrites its result. A transformation "with aux" also receives a
``Store`` where it leaves a side result (the output tree of a flattening), read after
the call through a thunk. Both kinds come in JAX's two spellings: ``transformation2``
takes such a function; ``transformation`` takes a generator that yields the inner
call's ``(args, kwargs)`` and then receives its result.
"""
from __future__ import annotations

import functools
from typing import Callable

from glassjax import caches


class StoreException(Exception):
    """A store read before it was filled, or filled twice."""


_EMPTY = object()


class Store:
    """A one-time slot for a transformation's side result."""
    __slots__ = ("_val",)

    def __init__(self):
        self._val = _EMPTY

    def store(self, val):
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self):
        self._val = _EMPTY

    @property
    def val(self):
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val

    def __bool__(self):
        return self._val is not _EMPTY


class EqualStore(Store):
    """A store that may be filled again with an equal value (a function traced twice)."""
    __slots__ = ()

    def store(self, val):
        if self._val is not _EMPTY:
            try:
                equal = bool(self._val == val)
            except Exception:
                equal = False
            if not equal:
                raise StoreException("Store occupied with not-equal value")
            return
        self._val = val


class WrappedFun:
    """``f`` with ``transforms`` applied (the outermost first); ``call_wrapped`` runs the
    whole stack. Two wrapped functions are equal when they wrap the same ``f`` with the
    same transformations and parameters, which is what caches key on."""
    __slots__ = ("f", "f_transformed", "transforms", "stores", "params", "in_type",
                 "debug_info")

    def __init__(self, f, f_transformed, transforms, stores, params, in_type, debug_info):
        self.f = f
        self.f_transformed = f_transformed
        self.transforms = transforms
        self.stores = stores
        self.params = params
        self.in_type = in_type
        self.debug_info = debug_info

    @property
    def __name__(self):
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def wrap(self, gen, gen_static_args, out_store) -> WrappedFun:
        """This function with one more transformation on top."""
        inner = ((self.f_transformed, *gen_static_args) if out_store is None
                 else (self.f_transformed, out_store, *gen_static_args))
        return WrappedFun(self.f, functools.partial(gen, *inner),
                          ((gen, gen_static_args), *self.transforms),
                          (out_store, *self.stores), self.params, None, self.debug_info)

    def populate_stores(self, stores):
        """Fill this function's stores from another's (a cached call's side results)."""
        for mine, other in zip(self.stores, stores):
            if mine is not None:
                mine.store(other.val)

    def call_wrapped(self, *args, **kwargs):
        return self.f_transformed(*args, **kwargs)

    def replace_debug_info(self, debug_info) -> WrappedFun:
        return WrappedFun(self.f, self.f_transformed, self.transforms, self.stores,
                          self.params, self.in_type, debug_info)

    def __repr__(self):
        lines = [f"{i}   : {getattr(gen, '__name__', gen)}   {args}"
                 for i, (gen, args) in enumerate(self.transforms)]
        return ("Wrapped function:\n" + "".join(l + "\n" for l in lines)
                + f"Core: {getattr(self.f, '__name__', self.f)}\n")

    def __hash__(self):
        return hash((self.f, self.transforms, self.params, self.in_type, self.debug_info))

    def __eq__(self, other):
        return (isinstance(other, WrappedFun) and self.f == other.f
                and self.transforms == other.transforms and self.params == other.params
                and self.in_type == other.in_type and self.debug_info == other.debug_info)


class Rule:
    """A flat function handed to a custom-derivative primitive, with the name of the user
    function it comes from (shown when the equation is printed): the one thing of a
    ``WrappedFun`` glassjax's own rules need, ``call_wrapped``."""

    def __init__(self, fun, name):
        self.fun = fun
        self.name = name

    def call_wrapped(self, *args, **kwargs):
        return self.fun(*args, **kwargs)


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
    """``f`` as a WrappedFun with no transformation yet; ``params`` (a dict) are passed
    to ``f`` as keyword arguments on every call."""
    params = () if params is None else tuple(sorted(params.items()))
    call = functools.partial(f, **dict(params)) if params else f
    return WrappedFun(f, call, (), (), params, None, debug_info)


def _curried(f):
    """``f(a, b, ...)`` spelled ``f(a)(b, ...)`` as well, as JAX's ``curry`` makes its
    transformations: ``transformation2(gen)`` is a decorator, and
    ``transformation2(gen, fun)`` a partial still to be called."""
    return functools.partial(functools.partial, f)


@_curried
def transformation2(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """``fun`` with ``gen(inner, *gen_static_args, *args, **kwargs)`` on top."""
    return fun.wrap(gen, gen_static_args, None)


@_curried
def transformation_with_aux2(gen, fun: WrappedFun, *gen_static_args,
                             use_eq_store: bool = False):
    """``(fun with gen(inner, store, *gen_static_args, *args) on top, thunk)``: the
    thunk reads what ``gen`` left in its store once the function has run."""
    store = EqualStore() if use_eq_store else Store()
    return fun.wrap(gen, gen_static_args, store), lambda: store.val


@_curried
def transformation(gen, fun: WrappedFun, *gen_static_args) -> WrappedFun:
    """The generator spelling of :func:`transformation2`: ``gen(*static, *args)``
    yields ``(args, kwargs)`` for the inner call, is sent its result, yields the answer."""
    def run(inner, *args, **kwargs):
        steps = gen(*args, **kwargs)
        inner_args, inner_kwargs = next(steps)
        return steps.send(inner(*inner_args, **inner_kwargs))
    run.__name__ = getattr(gen, "__name__", "transformation")
    return fun.wrap(run, gen_static_args, None)


@_curried
def transformation_with_aux(gen, fun: WrappedFun, *gen_static_args):
    """The generator spelling of :func:`transformation_with_aux2`: the generator's last
    yield is ``(answer, aux)``."""
    def run(inner, store, *args, **kwargs):
        steps = gen(*args, **kwargs)
        inner_args, inner_kwargs = next(steps)
        answer, aux = steps.send(inner(*inner_args, **inner_kwargs))
        store.store(aux)
        return answer
    run.__name__ = getattr(gen, "__name__", "transformation_with_aux")
    store = Store()
    return fun.wrap(run, gen_static_args, store), lambda: store.val


def merge_linear_aux(aux1, aux2):
    """``(True, aux1's value)`` if the first store was filled, else ``(False, aux2's)``:
    of two branches of a transformation only one ran."""
    try:
        return True, aux1()
    except StoreException:
        try:
            return False, aux2()
        except StoreException:
            raise StoreException("neither store occupied") from None


_cached_calls = caches.family("linear_util.cache", weak=True,
                              why="entries die with the wrapped function")


def cache(call: Callable):
    """Memoize ``call(fun: WrappedFun, *args)``, per wrapped function ``fun.f`` (held
    weakly) and the rest of the key; a hit refills ``fun``'s stores from the first call's."""
    tables = _cached_calls.new()

    @functools.wraps(call)
    def memoized(fun: WrappedFun, *args):
        table = tables.setdefault(fun.f, {})
        key = (fun.transforms, fun.params, fun.in_type, fun.debug_info, args)
        hit = table.get(key)
        if hit is None:
            answer = call(fun, *args)
            table[key] = (answer, fun.stores)
            return answer
        answer, stores = hit
        fun.populate_stores(stores)
        return answer

    memoized.cache_clear = tables.clear
    return memoized


__all__ = ["EqualStore", "Store", "StoreException", "WrappedFun", "cache",
           "merge_linear_aux", "transformation", "transformation2",
           "transformation_with_aux", "transformation_with_aux2", "wrap_init"]
