"""The profiles stored in a project, and profiles made on the fly from the command line."""

from __future__ import annotations

import os

from bagel_studio.core.llm.profiles import DEFAULT_BASE_URL, Profile, ProfileError
from bagel_studio.core.store import Store


def load_profiles(store: Store) -> list[Profile]:
    """The model profiles stored in the project. One this program cannot read (written by a newer
    release) is left out here and left in the project, not lost."""
    profiles = []
    for label, data in store.llm.profile_rows():
        try:
            profiles.append(Profile.from_json({**data, "label": label}))
        except (ProfileError, TypeError):
            continue  # a profile this program cannot use is left alone, not lost
    return profiles


def find_profile(store: Store, label: str) -> Profile | None:
    """The stored profile labelled ``label``, or None."""
    return next((p for p in load_profiles(store) if p.label == label), None)


def resolve_profile(
    store: Store,
    label_or_model: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    label: str | None = None,
    **settings: object,
) -> tuple[Profile, bool]:
    """The profile a command means, and whether it is new or changed (to be saved).

    ``--model X`` names a stored profile by label; with ``--base-url`` (or when no profile has
    that label) it makes one on the fly, chat completions by default, labelled ``--label`` or X.
    """
    wanted_label = label or label_or_model
    stored = find_profile(store, wanted_label)
    changes = {k: v for k, v in settings.items() if v is not None}
    untouched = base_url is None and label is None and api_key_env is None and not changes
    if stored is not None and untouched:
        return stored, False
    if stored is not None:
        model = label_or_model if label is not None else stored.model
        profile = stored.with_changes(
            model=model, base_url=base_url, api_key_env=api_key_env, **changes
        )
        return profile, profile != stored
    profile = Profile(
        label=wanted_label,
        model=label_or_model,
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
    )
    return profile.with_changes(api_key_env=api_key_env, **changes), True
