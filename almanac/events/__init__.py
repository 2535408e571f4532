"""OpenForecast-style complex events: Wikipedia/WCEP complex events -> timelines -> six forecasting tasks."""
