//! regwatt-designs
