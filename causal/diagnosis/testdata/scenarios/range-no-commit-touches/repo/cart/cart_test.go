package cart
