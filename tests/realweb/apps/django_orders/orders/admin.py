from django.contrib import admin

from .models import Order


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    # The notes sit in a collapsed fieldset: Django renders it as a closed <details> whose <summary> opens it.
    fieldsets = [
        (None, {"fields": ["customer", "quantity", "color", "express"]}),
        ("Notes", {"classes": ["collapse"], "fields": ["notes"]}),
    ]
