"""What the farm client and the Celery workers share: Redis key names, leases, duration history
and the fair-share arithmetic. Nothing here imports Celery."""
