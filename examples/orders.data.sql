INSERT INTO customers (id, name, email) VALUES
    (1, 'Ada', 'ada@example.com'),
    (2, 'Grace', 'grace@example.com'),
    (3, 'Linus', 'linus@example.com'),
    (4, 'Barbara', 'barbara@example.com');

INSERT INTO orders (id, customer_id, status, amount, created_at) VALUES
    (1, 1, 'paid', 120.0, '2024-05-01'),
    (2, 1, 'paid', 30.5, '2024-05-03'),
    (3, 2, 'paid', 200.0, '2024-05-04'),
    (4, 2, 'refunded', 80.0, '2024-05-05'),
    (5, 3, 'pending', 45.0, '2024-05-06'),
    (6, 4, 'paid', 99.99, '2024-05-07');
