"""Operations: every write a user action makes, one function and one transaction each."""
