"""Operations: one function per user action, one transaction each, returning what changed."""
