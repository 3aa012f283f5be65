"""Test support shared by every test folder: fakes and fixtures."""
