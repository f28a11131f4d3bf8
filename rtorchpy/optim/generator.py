"""R torch's class generators in Python: ``optimizer()`` and ``lr_scheduler()`` both make a
subclass from an ``initialize`` function that calls ``self.super_initialize(...)`` (R torch's
``super$initialize``) and from methods given by name. The shared mechanism is here."""
from __future__ import annotations


def make_class(base, kind, classname, parent, initialize, namespace, required, init_call, doc):
    """A subclass ``classname`` of ``parent`` (``base`` or one of its subclasses: ``kind`` names
    it in the error) with the methods in ``namespace``; when ``initialize`` is given it becomes
    the constructor, which must call ``self.super_initialize(...)`` (checked afterwards: the
    instance then has the attribute ``required``; ``init_call`` is the call the error message
    shows)."""
    if not (isinstance(parent, type) and issubclass(parent, base)):
        raise TypeError(f"inherit must be {kind}, got {parent!r}")
    if initialize is not None:
        if not callable(initialize):
            raise TypeError(f"initialize must be a function, got {type(initialize).__name__}")

        def __init__(self, *args, **kwargs):
            stack = self.__dict__.setdefault("_init_classes", [])
            stack.append(cls)
            try:
                initialize(self, *args, **kwargs)
            finally:
                stack.pop()
            if not stack:
                del self.__dict__["_init_classes"]
            if required not in self.__dict__:
                raise RuntimeError(f"{classname}: initialize() must call "
                                   f"self.super_initialize({init_call})")
        namespace["__init__"] = __init__
    namespace.setdefault("__doc__", doc)
    cls = type(classname, (parent,), namespace)
    return cls


def super_initialize(self, *args, **kwargs):
    """Run the parent class's constructor from an ``initialize`` given to a generator (R torch's
    ``super$initialize(...)``)."""
    stack = self.__dict__.get("_init_classes")
    if not stack:
        raise RuntimeError("super_initialize() can only be called from initialize()")
    return super(stack[-1], self).__init__(*args, **kwargs)
