"""What every command shares with the user: options, progress, figures' common style and saving, warnings."""
