// Placeholder so the server layer library is never empty.
