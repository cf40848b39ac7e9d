# Headless stand-ins for GUI toolkits, installed as `sitecustomize` on the
# PYTHONPATH of a generated project's run (Roundtable's SRDD scoring, in
# the CLI's CPython and in the page's Pyodide alike). No window can open
# where projects are scored, so `tkinter`, `turtle`, `pygame` and the other
# toolkits below are served by modules whose every name works: a widget or
# a call gives back another stand-in, a main loop waits until the run is
# stopped. A GUI program is then judged as ChatDev's script judges one on a
# desktop: executable unless it raises (its own code still runs: a class
# deriving from a widget is a real class). Each toolkit served is written,
# one name a line, to the file $ROUNDTABLE_GUI_MARK, so the result can say so.
import importlib.abc
import importlib.machinery
import os
import sys
import time
import types

TOOLKITS = ("tkinter", "_tkinter", "turtle", "pygame", "PyQt5", "PyQt6", "PySide2", "PySide6", "wx", "kivy", "pyglet", "arcade")
LOOPS = {"mainloop", "run", "exec", "exec_", "MainLoop", "done", "exitonclick", "app_run"}


def _wait_forever(*args, **kwargs):
    while True:
        time.sleep(1)


class Widget:
    """Any widget, constant or handle: every call and attribute is one too."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return Widget()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name in LOOPS:
            return _wait_forever
        return Widget()

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __str__(self):
        return ""

    def __getitem__(self, key):
        return Widget()

    def __setitem__(self, key, value):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


def _value(self, *args):
    return Widget()


def _false(self, *args):
    return False


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift"):
    for _form in ("__%s__", "__r%s__", "__i%s__"):
        setattr(Widget, _form % _op, _value)
for _op in ("lt", "le", "gt", "ge"):
    setattr(Widget, "__%s__" % _op, _false)
Widget.__neg__ = Widget.__pos__ = Widget.__abs__ = _value


def _mark(toolkit):
    path = os.environ.get("ROUNDTABLE_GUI_MARK")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(toolkit + "\n")


class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name in LOOPS:
            return _wait_forever
        # A class for what may be derived from (Tk, Frame, Sprite, QWidget),
        # a stand-in for the rest.
        return Widget if name[:1].isupper() else Widget()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in TOOLKITS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        if "." not in module.__name__:
            _mark(module.__name__)


sys.meta_path.insert(0, _Finder())
