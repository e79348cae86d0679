"""What every command shares with the user: options, the command lifecycle, progress, figures' common style and saving."""
