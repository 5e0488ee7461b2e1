"""Only what pyproject.toml cannot say: the repository keeps its data in the top-level
``resources/`` folder, and the wheel ships it as the package data ``bagel_studio/resources``
(``bagel_studio.core.resources`` finds either). Each folder of data, under ``resources/`` or in
the package, is listed as a (data-only) package so that setuptools neither drops nor warns about
it; which files go in is the ``package-data`` table of pyproject.toml, as for everything else."""

from setuptools import find_namespace_packages, setup

RESOURCE_PACKAGES = [
    "bagel_studio.resources",
    *(f"bagel_studio.resources.{name}" for name in find_namespace_packages(where="resources")),
]

setup(
    # Folders of package data inside the package (e.g. core/llm/prompts) count as packages too.
    packages=[
        *find_namespace_packages(
            include=["bagel_studio", "bagel_studio.*"], exclude=["*__pycache__*"]
        ),
        *RESOURCE_PACKAGES,
    ],
    package_dir={"bagel_studio.resources": "resources"},
)
