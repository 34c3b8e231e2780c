from django.db import models


class Order(models.Model):
    COLORS = [("red", "Red"), ("green", "Green"), ("blue", "Blue")]
    customer = models.CharField(max_length=100)
    quantity = models.PositiveIntegerField(default=1)
    color = models.CharField(max_length=10, choices=COLORS)
    express = models.BooleanField(default=False)
    notes = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"Order of {self.customer}"
