"""A minimal Django project: the admin and one model, a real SQLite database (path from ORDERS_DB)."""

import os

SECRET_KEY = "realweb-suite-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.messages", "django.contrib.staticfiles", "orders",
]  # fmt: skip
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware", "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware", "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware", "django.contrib.messages.middleware.MessageMiddleware",
]  # fmt: skip
ROOT_URLCONF = "urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request", "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]  # fmt: skip
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["ORDERS_DB"]}}
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
