//! regwatt-tech
