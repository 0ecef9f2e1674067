"""HTTP in front of every route, knowing nothing of models: the guards (host header, key, body
limits), the loopback rule, CORS, the error boundary, streaming a reply's events, the fields a
request carried that are ignored, and TCP without small-write waits."""
