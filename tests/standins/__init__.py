"""Local stand-ins for hosted providers, speaking their real wire protocols.

    textract.py    Amazon Textract's JSON 1.1 protocol (what boto3 sends with endpoint_url)
    openai_api.py  OpenAI's REST chat-completions API (what the official client sends)

Each runs in a thread of the test (`with TextractStandIn.running() as textract: ...`) or as a
process (`python -m tests.standins.textract --port 9001`), counts what the real provider would
charge, and can be told to misbehave (throttle, fail with 5xx, answer slowly, or do the work
and then drop the connection) through its control endpoints, which live under `/_standin/`.
"""
