"""Only what pyproject.toml cannot say: the repository keeps its data in the top-level
``resources/`` folder, and the wheel ships it as the package data ``bagel_studio/resources``
(``bagel_studio.core.resources`` finds either). Each folder under ``resources/`` is listed as a
(data-only) package so that setuptools neither drops nor warns about it; which files go in is the
``package-data`` table of pyproject.toml. Everything else is in pyproject.toml."""

from setuptools import find_namespace_packages, find_packages, setup

RESOURCE_PACKAGES = [
    "bagel_studio.resources",
    *(f"bagel_studio.resources.{name}" for name in find_namespace_packages(where="resources")),
]

setup(
    packages=[*find_packages(include=["bagel_studio", "bagel_studio.*"]), *RESOURCE_PACKAGES],
    package_dir={"bagel_studio.resources": "resources"},
)
