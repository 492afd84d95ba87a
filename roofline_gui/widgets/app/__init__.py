"""The application: the main window, its file, measurement and layout controllers, and the self-test."""
