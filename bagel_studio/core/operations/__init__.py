"""Every write to a project: one function per user action, one transaction each."""
