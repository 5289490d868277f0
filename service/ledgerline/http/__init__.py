"""The HTTP edge: thin views over the service layer."""
