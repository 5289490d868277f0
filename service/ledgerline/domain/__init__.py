"""Domain rules: plain Python, no Flask, SQLAlchemy or boto3 in here."""
