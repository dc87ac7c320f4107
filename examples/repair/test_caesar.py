from caesar import crack, decrypt, encrypt


def test_encrypt():
    assert encrypt("Hello, World!", 3) == "Khoor, Zruog!"
    assert encrypt("xyz", 3) == "abc"


def test_decrypt_undoes_encrypt():
    assert decrypt("Khoor, Zruog!", 3) == "Hello, World!"
    assert decrypt(encrypt("attack at dawn", 11), 11) == "attack at dawn"


def test_crack():
    assert crack(encrypt("meet me at noon", 7), "noon") == 7
