"""One module per subcommand of ``bagel-studio`` (see ``bagel_studio.core.cli``)."""
