"""The desktop desk (PySide6, pyqtgraph): thin views over ``bagel_studio.core``."""
