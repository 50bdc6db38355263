"""`moot view`: a read-only web app over the store (debates, batches, benches), live while they run.

Needs the `view` extra (Starlette and uvicorn): `pip install 'moot[view]'`."""
