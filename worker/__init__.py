"""farm's Celery worker: one worker process per device (see worker.main)."""
