"""The optional C extension (openodke.eval.engine._keyhash); everything else is in pyproject.toml.

``optional=True``: where no C compiler is found the install goes on, and the fast loader uses
the same code in Python (openodke.eval.engine.keyhash).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "openodke.eval.engine._keyhash", ["src/openodke/eval/engine/_keyhash.c"], optional=True
        )
    ]
)
